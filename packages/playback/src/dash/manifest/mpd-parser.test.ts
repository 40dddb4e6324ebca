import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  LIVE_NUMBER_MPD,
  LIVE_TIMELINE_MPD,
  MULTI_PERIOD_MPD,
  T0,
  UNSUPPORTED_ADDRESSING_MPD,
} from "./fixtures/hand-written-mpds.js";
import type { Mpd, Representation } from "./mpd-model.js";
import { parseMpd, parseMpdStream } from "./mpd-parser.js";

const URL_ = "https://origin.example/live/channel/manifest.mpd";

function parsed(xml: string, url = URL_): Mpd {
  const r = parseMpd(xml, { url });
  if (!r.ok) assert.fail(`${r.error.element}: ${r.error.message}`);
  return r.value;
}

function rep(mpd: Mpd, period: number, id: string): Representation {
  const found = mpd.periods[period]?.adaptationSets
    .flatMap((s) => s.representations)
    .find((r) => r.id === id);
  assert.ok(found, `representation ${id}`);
  return found;
}

describe("parseMpd: MPD-level attributes", () => {
  const mpd = parsed(LIVE_NUMBER_MPD);
  const cases: [string, unknown, unknown][] = [
    ["type", mpd.type, "dynamic"],
    ["availabilityStartTime", mpd.availabilityStartTime, T0],
    ["publishTime", mpd.publishTime, T0 + 100_500],
    ["minimumUpdatePeriod", mpd.minimumUpdatePeriod, 2],
    ["timeShiftBufferDepth", mpd.timeShiftBufferDepth, 30],
    ["suggestedPresentationDelay", mpd.suggestedPresentationDelay, 6],
    ["maxSegmentDuration", mpd.maxSegmentDuration, 2],
    ["minBufferTime", mpd.minBufferTime, 4],
    ["profiles", mpd.profiles, ["urn:mpeg:dash:profile:isoff-live:2011", "urn:com:dashif:dash264"]],
    ["utc schemes", mpd.utcTimings.map((u) => u.scheme), ["http-iso", "direct"]],
    ["period start", mpd.periods[0]?.start, 0],
    ["open live period has no end", mpd.periods[0]?.end, undefined],
  ];
  for (const [name, got, want] of cases) it(name, () => assert.deepEqual(got, want));
});

describe("parseMpd: AdaptationSet / Representation attributes", () => {
  const mpd = parsed(LIVE_NUMBER_MPD);
  it("inherits common attributes and lets the Representation override them", () => {
    const v720 = rep(mpd, 0, "v720");
    assert.equal(v720.mimeType, "video/mp4");
    assert.equal(v720.codecs, "avc1.64001f");
    assert.deepEqual([v720.width, v720.height, v720.bandwidth], [1280, 720, 3_000_000]);
    assert.deepEqual(v720.frameRate, { numerator: 30000, denominator: 1001, fps: 30000 / 1001 });
    assert.equal(rep(mpd, 0, "v360").frameRate?.fps, 25);
  });
  it("reads ContentProtection with a normalised default_KID", () => {
    const cp = rep(mpd, 0, "v1080").contentProtection;
    assert.deepEqual(cp, [
      {
        schemeIdUri: "urn:mpeg:dash:mp4protection:2011",
        value: "cenc",
        defaultKid: "100000001000100010001000000000ab",
      },
      { schemeIdUri: "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed" },
    ]);
  });
  it("reads audio attributes, channel configurations and roles", () => {
    const en = rep(mpd, 0, "a-en");
    assert.equal(en.contentType, "audio");
    assert.equal(en.lang, "en");
    assert.equal(en.audioSamplingRate, 48000);
    assert.equal(en.audioChannelConfigurations[0]?.channels, 2);
    assert.deepEqual(en.roles, [{ schemeIdUri: "urn:mpeg:dash:role:2011", value: "main" }]);
    assert.equal(
      rep(mpd, 0, "a-de").audioChannelConfigurations[0]?.channels,
      6,
      "Dolby mask F801 is 5.1",
    );
  });
  it("infers text content from stpp codecs", () => {
    const set = mpd.periods[0]?.adaptationSets[3];
    assert.equal(set?.contentType, "text");
  });
  it("resolves segment information with defaults", () => {
    const a = rep(mpd, 0, "v720").addressing;
    assert.equal(a.kind, "template");
    if (a.kind !== "template") return;
    assert.equal(a.template.timescale, 90000);
    assert.equal(a.template.duration, 180000);
    assert.equal(a.template.startNumber, 10);
    assert.equal(a.template.availabilityTimeOffset, 1.5);
    assert.equal(a.template.availabilityTimeComplete, false);
    assert.equal(a.template.presentationTimeOffset, 0n);
  });
});

describe("parseMpd: BaseURL chain", () => {
  const mpd = parsed(MULTI_PERIOD_MPD);
  const cases: [string, string, string][] = [
    ["absolute Representation BaseURL replaces the chain", "7", "https://other.example.net/abs/"],
    [
      "relative BaseURLs chain MPD -> Period -> AdaptationSet -> Representation",
      "8",
      "https://cdn.example.com/content/period1/video/r8/",
    ],
  ];
  for (const [name, id, want] of cases) it(name, () => assert.equal(rep(mpd, 0, id).baseUrl, want));
  it("without any BaseURL the MPD URL is the base", () => {
    const m = parsed(LIVE_NUMBER_MPD);
    assert.equal(rep(m, 0, "v720").baseUrl, URL_);
  });
  it("a relative MPD BaseURL resolves against the final MPD URL and carries availabilityTimeOffset", () => {
    const m = parsed(LIVE_TIMELINE_MPD, "https://edge.example/a/b/index.mpd?token=1");
    assert.equal(m.baseUrl, "https://edge.example/a/b/live/");
    assert.equal(rep(m, 0, "hd").baseUrlAvailabilityTimeOffset, 0.5);
  });
});

describe("parseMpd: SegmentTemplate merge across Period, AdaptationSet, Representation", () => {
  const mpd = parsed(MULTI_PERIOD_MPD);
  const r8 = rep(mpd, 0, "8").addressing;
  const r7 = rep(mpd, 0, "7").addressing;
  it("keeps inherited attributes when the Representation sets only @startNumber", () => {
    assert.equal(r8.kind, "template");
    if (r8.kind !== "template") return;
    assert.equal(r8.template.media, "$RepresentationID%03d$_$Number%04d$_$Bandwidth%08d$.m4s");
    assert.equal(r8.template.initialization, "$RepresentationID$_init.mp4");
    assert.equal(r8.template.timescale, 1000);
    assert.equal(r8.template.presentationTimeOffset, 5000n);
    assert.equal(r8.template.startNumber, 100);
    assert.equal(r8.template.timeline?.length, 2);
  });
  it("a sibling without its own template keeps the inherited startNumber", () => {
    assert.equal(r7.kind === "template" && r7.template.startNumber, 5);
  });
  it("computes Period start and end from @start, @duration and the presentation duration", () => {
    assert.deepEqual(
      mpd.periods.map((p) => [p.id, p.start, p.end]),
      [
        ["one", 0, 8],
        ["two", 8, 20],
      ],
    );
  });
});

describe("parseMpd: unsupported addressing is reported, not fatal", () => {
  const mpd = parsed(UNSUPPORTED_ADDRESSING_MPD);
  const cases: [string, string][] = [
    ["list", "SegmentList"],
    ["base", "SegmentBase"],
    ["nothing", "none"],
  ];
  for (const [id, scheme] of cases) {
    it(`${id} -> ${scheme}`, () => {
      const a = rep(mpd, 0, id).addressing;
      assert.equal(a.kind, "unsupported");
      if (a.kind === "unsupported") {
        assert.equal(a.scheme, scheme);
        assert.ok(a.reason.length > 10);
      }
    });
  }
  it("a Period without @id is keyed by its start", () =>
    assert.equal(mpd.periods[0]?.id, "start:0"));
});

describe("parseMpd: errors are values naming the element", () => {
  const wrap = (inner: string, attrs = 'type="static" mediaPresentationDuration="PT4S"') =>
    `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" ${attrs}><Period>${inner}</Period></MPD>`;
  const set = (tpl: string, repAttrs = 'id="r" bandwidth="1"') =>
    wrap(`<AdaptationSet contentType="video">${tpl}<Representation ${repAttrs}/></AdaptationSet>`);
  const cases: [string, string, string, RegExp][] = [
    [
      "S without @d",
      set(
        '<SegmentTemplate media="$Number$"><SegmentTimeline><S t="0"/></SegmentTimeline></SegmentTemplate>',
      ),
      "SegmentTimeline/S",
      /S@d/,
    ],
    [
      "S@r below -1",
      set(
        '<SegmentTemplate media="$Number$"><SegmentTimeline><S d="1" r="-2"/></SegmentTimeline></SegmentTemplate>',
      ),
      "SegmentTimeline/S",
      /S@r/,
    ],
    [
      "S@t not a number",
      set(
        '<SegmentTemplate media="$Number$"><SegmentTimeline><S t="x" d="1"/></SegmentTimeline></SegmentTemplate>',
      ),
      "SegmentTimeline/S",
      /S@t/,
    ],
    [
      "empty timeline",
      set('<SegmentTemplate media="$Number$"><SegmentTimeline/></SegmentTemplate>'),
      "SegmentTemplate/SegmentTimeline",
      /no S/,
    ],
    [
      "bad timescale",
      set('<SegmentTemplate media="$Number$" duration="1" timescale="0"/>'),
      "AdaptationSet/SegmentTemplate",
      /timescale/,
    ],
    [
      "unknown identifier",
      set('<SegmentTemplate media="$Foo$" duration="1"/>'),
      "AdaptationSet/Representation",
      /Foo/,
    ],
    [
      "Number and Time together",
      set('<SegmentTemplate media="$Number$$Time$" duration="1"/>'),
      "AdaptationSet/Representation",
      /both/,
    ],
    [
      "no duration, no timeline",
      set('<SegmentTemplate media="$Number$"/>'),
      "AdaptationSet/Representation",
      /@duration/,
    ],
    [
      "malformed bandwidth",
      set('<SegmentTemplate media="$Number$" duration="1"/>', 'id="r" bandwidth="fast"'),
      "AdaptationSet/Representation",
      /bandwidth/,
    ],
    [
      "template width beyond 32",
      set('<SegmentTemplate media="$Number%0100000000d$" duration="1"/>'),
      "AdaptationSet/Representation",
      /SegmentTemplate@media: format width 100000000 of \$Number\$ exceeds the maximum of 32/,
    ],
    [
      "bad KID",
      set('<ContentProtection cenc:default_KID="zz" xmlns:cenc="urn:mpeg:cenc:2013"/>'),
      "AdaptationSet/ContentProtection",
      /default_KID/,
    ],
    [
      "bad frameRate",
      set(
        '<SegmentTemplate media="$Number$" duration="1"/>',
        'id="r" bandwidth="1" frameRate="30/0"',
      ),
      "AdaptationSet/Representation",
      /frameRate/,
    ],
    ["bad MPD type", wrap("", 'type="live"'), "MPD", /static nor dynamic/],
    ["dynamic without AST", wrap("", 'type="dynamic"'), "MPD", /availabilityStartTime/],
    ["bad duration", wrap("", 'type="static" minBufferTime="2 seconds"'), "MPD", /minBufferTime/],
    ["not an MPD", "<Playlist/>", "Playlist", /expected <MPD>/],
    ["malformed XML", "<MPD><Period></MPD>", "MPD", /malformed XML: 1:19: unexpected close tag/],
    ["unclosed document", "<MPD><Period>", "MPD/Period", /malformed/],
  ];
  for (const [name, xml, element, message] of cases) {
    it(name, () => {
      const r = parseMpd(xml, { url: URL_ });
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.element, element);
      assert.match(r.error.message, message);
    });
  }
});

describe("parseMpd: lenient where the engine does not need the value (corpus findings)", () => {
  const wrap = (root: string, set: string) =>
    `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S">${root}<Period>${set}</Period></MPD>`;
  const tpl = '<SegmentTemplate media="$Number$.m4s" initialization="i.mp4" duration="1"/>';
  it("reads a Representation without @bandwidth as 0", () => {
    const r = parseMpd(
      wrap("", `<AdaptationSet mimeType="text/vtt">${tpl}<Representation id="s"/></AdaptationSet>`),
      { url: URL_ },
    );
    assert.ok(r.ok);
    assert.equal(r.value.periods[0]?.adaptationSets[0]?.representations[0]?.bandwidth, 0);
  });
  it('reads frameRate="30.0" as 30 fps', () => {
    const r = parseMpd(
      wrap(
        "",
        `<AdaptationSet mimeType="video/mp4" frameRate="30.0">${tpl}<Representation id="v" bandwidth="1"/></AdaptationSet>`,
      ),
      { url: URL_ },
    );
    assert.ok(r.ok);
    assert.equal(r.value.periods[0]?.adaptationSets[0]?.representations[0]?.frameRate?.fps, 30);
  });
  it("skips an empty <UTCTiming/>", () => {
    const r = parseMpd(
      wrap(
        "<UTCTiming/>",
        `<AdaptationSet mimeType="video/mp4">${tpl}<Representation id="v" bandwidth="1"/></AdaptationSet>`,
      ),
      { url: URL_ },
    );
    assert.ok(r.ok);
    assert.deepEqual(r.value.utcTimings, []);
  });
});

describe("parseMpd: byte ceiling", () => {
  it("rejects a document over maxBytes", () => {
    const r = parseMpd(MULTI_PERIOD_MPD, { url: URL_, maxBytes: 512 });
    assert.deepEqual(r.ok ? null : r.error, {
      element: "#document",
      message: "document exceeds 512 bytes",
    });
  });
  it("stops reading a stream once the ceiling is crossed", async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode(
        '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static"><Period>',
      );
      for (;;) {
        pulled += 1;
        yield new TextEncoder().encode("<!-- filler filler filler filler filler filler -->");
      }
    }
    const r = await parseMpdStream(endless(), { url: URL_, maxBytes: 4096 });
    assert.equal(r.ok, false);
    assert.ok(pulled < 100, `pulled ${pulled} chunks`);
  });
  it("parses a stream split inside a multi-byte character", async () => {
    const bytes = new TextEncoder().encode(
      MULTI_PERIOD_MPD.replace('<Period id="one"', '<!-- é -->\n<Period id="one"'),
    );
    const cut = bytes.indexOf(0xc3) + 1;
    async function* two(): AsyncGenerator<Uint8Array> {
      yield bytes.slice(0, cut);
      yield bytes.slice(cut);
    }
    const r = await parseMpdStream(two(), { url: URL_ });
    assert.ok(r.ok);
    assert.equal(r.value.periods.length, 2);
  });
});
