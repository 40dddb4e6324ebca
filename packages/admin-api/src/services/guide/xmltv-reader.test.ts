import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createXmltvReader,
  type GuideChannelRecord,
  type ProgrammeRecord,
  XmltvError,
} from "./xmltv-reader.js";

function read(xml: string | Buffer, zone = "UTC", chunk = 7) {
  const channels: GuideChannelRecord[] = [];
  const programmes: ProgrammeRecord[] = [];
  const r = createXmltvReader(zone, {
    channel: (c) => channels.push(c),
    programme: (p) => programmes.push(p),
  });
  const bytes = Buffer.isBuffer(xml) ? xml : Buffer.from(xml);
  // Tiny chunks: multi-byte characters and tags split across writes.
  for (let i = 0; i < bytes.length; i += chunk) r.write(bytes.subarray(i, i + chunk));
  return { ...r.close(), channels, programmes };
}

describe("createXmltvReader", () => {
  it("reads channels and programmes, escaping and ordering children per the DTD", () => {
    const out = read(`<?xml version="1.0"?><tv generator-info-name="g">
      <channel id="a"><display-name>Ä &amp; B</display-name><icon src="http://x/i.png"/></channel>
      <programme start="20260101000000 +0100" stop="20260101010000 +0100" channel="a">
        <category>Cat</category><title>T &lt;1&gt; &#233;</title><desc>D</desc><new/></programme>
      <programme start="bad" channel="a"><title>x</title></programme>
      <programme start="20260101000000" channel="a"><desc>no title</desc></programme>
    </tv>`);
    assert.deepEqual(out.channels, [{ id: "a", displayNames: ["Ä & B"], icon: "http://x/i.png" }]);
    assert.equal(out.programmes.length, 1);
    assert.deepEqual(out.programmes[0], {
      channel: "a",
      start: Date.UTC(2025, 11, 31, 23) / 1000,
      stop: Date.UTC(2026, 0, 1, 0) / 1000,
      body: "<title>T &lt;1&gt; é</title><desc>D</desc><category>Cat</category><new/>",
    });
    assert.equal(out.skipped, 2);
    assert.equal(out.metadata["generator-info-name"], "g");
  });
  it("reads CDATA, unknown elements and attributes, every display name and lcn", () => {
    const out = read(`<tv>
      <channel id="k2"><display-name>2 KTVU</display-name><display-name lang="en">KTVU</display-name>
        <display-name>2</display-name><lcn>2</lcn><lcn>702</lcn><x-ext>z</x-ext></channel>
      <programme start="20260101000000 +0000" channel="k2" clumpidx="0/1" pdc-start="20260101000000"
        vps-start="20260101000000" showview="123" videoplus="456" x-flag="1">
        <title lang="en"><![CDATA[Tom & Jerry]]></title><title lang="de">  Tom &amp;
        Jerry </title><x-rating>9</x-rating><desc><![CDATA[<b>bold</b>]]> &amp; more</desc></programme>
    </tv>`);
    assert.deepEqual(out.channels, [
      { id: "k2", displayNames: ["2 KTVU", "KTVU", "2", "702"], icon: "" },
    ]);
    assert.equal(
      out.programmes[0]!.body,
      '<title lang="en">Tom &amp; Jerry</title><title lang="de">Tom &amp;\n        Jerry</title><desc>&lt;b&gt;bold&lt;/b&gt; &amp; more</desc>',
    );
    assert.equal(out.skipped, 0);
  });
  it("reads ISO-8859-1 documents", () => {
    const xml = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><tv><channel id="a"><display-name>Télé</display-name></channel></tv>',
      "latin1",
    );
    assert.deepEqual(read(xml).channels[0]!.displayNames, ["Télé"]);
  });
  it("refuses internal subsets, undefined entities, deep nesting and huge text", () => {
    const refused = [
      '<!DOCTYPE tv [<!ENTITY a "b">]><tv>&a;</tv>',
      "<tv><channel id='a'><display-name>&nbsp;</display-name></channel></tv>",
      `<tv>${"<x>".repeat(40)}${"</x>".repeat(40)}</tv>`,
      `<tv><channel id="a"><display-name>${"a".repeat(1_100_000)}</display-name></channel></tv>`,
      "<rss></rss>",
      "<tv><channel id='a'>",
    ];
    for (const xml of refused)
      assert.throws(() => read(xml, "UTC", 65_536), XmltvError, xml.slice(0, 40));
  });
  it("accepts an external DOCTYPE without reading it", () => {
    assert.equal(
      read('<!DOCTYPE tv SYSTEM "http://127.0.0.2/xmltv.dtd"><tv></tv>').channels.length,
      0,
    );
  });
});
