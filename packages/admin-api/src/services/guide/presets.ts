/**
 * Built-in guide sources (docs/guide.md "Presets"). Every preset starts
 * disabled: the gateway contacts none of them until the operator enables it.
 * URLs are the files their maintainers publish; all carry explicit UTC offsets,
 * so `timezone` only matters for offset-less times.
 */
export interface GuidePreset {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly timezone: string;
  readonly proxy: string;
  readonly enabled: boolean;
}

const preset = (id: string, name: string, url: string): GuidePreset =>
  Object.freeze({ id, name, url, timezone: "UTC", proxy: "direct", enabled: false });

export const GUIDE_PRESETS: readonly GuidePreset[] = Object.freeze([
  preset("epgpw-gb", "epg.pw — United Kingdom", "https://epg.pw/xmltv/epg_GB.xml.gz"),
  preset("epgpw-us", "epg.pw — United States", "https://epg.pw/xmltv/epg_US.xml.gz"),
  preset("epgpw-de", "epg.pw — Germany", "https://epg.pw/xmltv/epg_DE.xml.gz"),
  preset("mjh-pluto-us", "i.mjh.nz — Pluto TV (US)", "https://i.mjh.nz/PlutoTV/us.xml.gz"),
  preset(
    "mjh-samsung-us",
    "i.mjh.nz — Samsung TV Plus (US)",
    "https://i.mjh.nz/SamsungTVPlus/us.xml.gz",
  ),
  preset("mjh-plex-us", "i.mjh.nz — Plex (US)", "https://i.mjh.nz/Plex/us.xml.gz"),
]);

export const PRESET_BY_ID: ReadonlyMap<string, GuidePreset> = new Map(
  GUIDE_PRESETS.map((p) => [p.id, p]),
);
