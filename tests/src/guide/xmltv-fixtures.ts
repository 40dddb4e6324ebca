/**
 * Realistic XMLTV documents for the guide suites: explicit offsets (+0100,
 * -0500), offset-less times read in the source's time zone across both DST
 * transitions of Europe/Berlin in 2026 (29 March 02:00→03:00, 25 October
 * 03:00→02:00), `&amp;`, non-ASCII titles, icons and categories.
 */
export function alphaGuide(origin: string, options: { withErste?: boolean } = {}): string {
  const erste = options.withErste ?? true;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tv SYSTEM "xmltv.dtd">
<tv generator-info-name="alpha-grabber" source-info-url="http://alpha.example/">
  <channel id="bbc1.uk">
    <display-name lang="en">BBC One HD</display-name>
    <icon src="${origin}/icons/bbc1.png"/>
  </channel>
  ${erste ? '<channel id="daserste.de"><display-name>Das Erste</display-name><display-name>ARD</display-name></channel>' : ""}
  <channel id="telequebec.ca"><display-name>Télé-Québec</display-name></channel>
  <channel id="sky.sports.f1"><display-name>Sky Sports F1 UHD</display-name></channel>
  <programme start="20260101200000 +0100" stop="20260101210000 +0100" channel="bbc1.uk">
    <title lang="en">News &amp; Weather</title>
    <desc lang="en">Headlines — and the forecast</desc>
    <category lang="en">News</category>
    <icon src="${origin}/icons/news.png"/>
    <episode-num system="onscreen">S1 E2</episode-num>
    <credits><director>Someone</director></credits>
  </programme>
  <programme start="20260101150000 -0500" stop="20260101160000 -0500" channel="telequebec.ca">
    <title lang="fr">Été à Montréal</title>
    <category lang="fr">Société</category>
  </programme>
  ${
    erste
      ? `<programme start="20260329013000" stop="20260329023000" channel="daserste.de"><title>Vor der Lücke</title></programme>
  <programme start="20260329023000" stop="20260329040000" channel="daserste.de"><title>In der Lücke</title></programme>
  <programme start="20261025023000" stop="20261025030000" channel="daserste.de"><title>Doppelte Stunde</title></programme>
  <programme start="20260715120000" stop="20260715130000" channel="daserste.de"><title>Sommerzeit</title><rating system="FSK"><value>12</value></rating></programme>`
      : ""
  }
  <programme start="20260101120000 +0000" channel="sky.sports.f1"><title>Grand Prix</title></programme>
</tv>
`;
}

/** A second source: overlaps alpha's BBC One news (dropped) and adds a later programme. */
export const BETA_GUIDE = `<?xml version="1.0" encoding="ISO-8859-1"?>
<tv>
  <channel id="bbc1.uk"><display-name>BBC 1</display-name></channel>
  <channel id="cnn.int"><display-name>CNN International</display-name></channel>
  <programme start="20260101191500 +0000" stop="20260101194500 +0000" channel="bbc1.uk"><title>Duplicate News</title></programme>
  <programme start="20260101210000 +0000" stop="20260101220000 +0000" channel="bbc1.uk"><title>Late Film</title></programme>
  <programme start="20260101180000 +0000" stop="20260101190000 +0000" channel="cnn.int"><title>World Report</title></programme>
</tv>
`;

/** Entity expansion attack: refused before anything is expanded. */
export const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE tv [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<tv><channel id="x"><display-name>&lol9;</display-name></channel></tv>
`;

/** An external entity: never fetched (a file the gateway could read is named). */
export const EXTERNAL_ENTITY = `<?xml version="1.0"?>
<!DOCTYPE tv [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<tv><channel id="x"><display-name>&xxe;</display-name></channel></tv>
`;
