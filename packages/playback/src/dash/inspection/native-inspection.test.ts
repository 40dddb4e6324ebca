import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FFMPEG_LIVE_MPD } from "../manifest/fixtures/ffmpeg-live-mpd.js";
import { LIVE_NUMBER_MPD } from "../manifest/fixtures/hand-written-mpds.js";
import { parseMpd } from "../manifest/mpd-parser.js";
import {
  audio,
  KID_A,
  KID_B,
  mpd,
  period,
  protection,
  SEGMENT_BASE_BARE,
  SEGMENT_BASE_INDEXED,
  SEGMENT_LIST,
  SUBTITLES_SEGMENT_BASE,
  TEMPLATE_WITHOUT_INIT,
  TEMPLATES,
  uuid,
  video,
} from "./fixtures/inspection-mpds.js";
import type { InspectionOptions } from "./native-inspection.js";
import { inspectMpdText, inspectNativeSupport } from "./native-inspection.js";

interface Row {
  name: string;
  xml: string;
  opts?: InspectionOptions;
  native: boolean;
  /** Every fragment must occur in `reason` (native rows: reason must be null). */
  reason?: string[];
  encrypted?: boolean;
  kids?: string[];
}

const clear = (sets: string) => mpd(period("p0", sets));

const rows: Row[] = [
  { name: "Number template, fMP4, clear", xml: clear(video({}) + audio({})), native: true },
  {
    name: "Time template with SegmentTimeline",
    xml: clear(video({ segments: TEMPLATES.TIMELINE_TEMPLATE }) + audio({})),
    native: true,
  },
  { name: "real ffmpeg 5.1 live MPD", xml: FFMPEG_LIVE_MPD, native: true },
  {
    name: "hand-written MPD: encrypted video with its key configured, clear audio, subtitles skipped",
    xml: LIVE_NUMBER_MPD,
    opts: { keyKids: ["10000000-1000-1000-1000-1000000000AB"] },
    native: true,
    encrypted: true,
    kids: ["100000001000100010001000000000ab"],
  },
  {
    name: "subtitle set with SegmentBase is not published, so it does not matter",
    xml: clear(video({}) + audio({}) + SUBTITLES_SEGMENT_BASE),
    native: true,
  },
  {
    name: "mimeType with parameters (ISO/IEC 23009-1 G.19 CMAF) is fMP4",
    xml: clear(video({ mime: "video/mp4; profiles='cmfc'" }) + audio({})),
    native: true,
  },
  {
    name: "mimeType with parameters but no ';', as example G.19 writes it",
    xml: clear(video({ mime: "video/mp4 profiles='cmfc'" }) + audio({})),
    native: true,
  },
  {
    name: "$SubNumber$ template (G.26) is reported, not judged native",
    xml: clear(
      video({
        segments: `<SegmentTemplate timescale="1000" duration="2000" media="$RepresentationID$/$Number$_$SubNumber$.m4s" initialization="$RepresentationID$/init.mp4"/>`,
      }),
    ),
    native: false,
    reason: ["Representation v1 uses $SubNumber$"],
  },
  {
    name: "live timeline with overlapping S entries (G.22) is caught",
    xml: clear(
      video({
        segments: `<SegmentTemplate timescale="90000" media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4">
        <SegmentTimeline><S t="0" d="180000" r="4"/><S t="720000" d="180000"/></SegmentTimeline>
      </SegmentTemplate>`,
      }),
    ),
    native: false,
    reason: ["S[1]@t=720000 overlaps the previous segments (ending at 900000)"],
  },
  {
    name: "subtitle Representation without @bandwidth is not published, so it does not matter",
    xml: clear(
      video({}) +
        `<AdaptationSet contentType="text" mimeType="text/vtt" lang="en"><Representation id="t1"><BaseURL>subs.vtt</BaseURL></Representation></AdaptationSet>`,
    ),
    native: true,
  },
  {
    name: "a published Representation without @bandwidth is reported",
    xml: clear(video({}).replace(' bandwidth="2000000"', "")),
    native: false,
    reason: ["Representation v1 has no @bandwidth"],
  },
  {
    name: "SegmentList",
    xml: clear(video({ segments: SEGMENT_LIST }) + audio({})),
    native: false,
    reason: ["Representation v1 uses SegmentList addressing"],
  },
  {
    name: "SegmentBase with an index: no sidx support",
    xml: clear(video({ segments: SEGMENT_BASE_INDEXED })),
    native: false,
    reason: ["SegmentBase", "no sidx support"],
  },
  {
    name: "SegmentBase without an index",
    xml: clear(video({ segments: SEGMENT_BASE_BARE })),
    native: false,
    reason: ["Representation v1 uses SegmentBase"],
  },
  {
    name: "SegmentTemplate without @initialization",
    xml: clear(video({ segments: TEMPLATE_WITHOUT_INIT })),
    native: false,
    reason: ["without @initialization"],
  },
  {
    name: "MPEG-TS in DASH",
    xml: clear(video({ mime: "video/mp2t", codecs: "avc1.64001f,mp4a.40.2" })),
    native: false,
    reason: ["MPEG-TS in DASH (video/mp2t)"],
  },
  {
    name: "WebM container",
    xml: clear(video({ mime: "video/webm", codecs: "vp9" })),
    native: false,
    reason: ["mimeType video/webm"],
  },
  {
    name: "VP9 in fMP4",
    xml: clear(video({ codecs: "vp09.00.10.08" }) + audio({})),
    native: false,
    reason: ["uses codec vp09"],
  },
  {
    name: "Vorbis audio",
    xml: clear(video({}) + audio({ codecs: "vorbis" })),
    native: false,
    reason: ["Representation a1 uses codec vorbis"],
  },
  {
    name: "muxed video+audio Representation",
    xml: clear(video({ codecs: "avc1.64001f,mp4a.40.2" })),
    native: false,
    reason: ["multiplexes several tracks"],
  },
  {
    name: "HEVC video with E-AC-3 audio",
    xml: clear(video({ codecs: "hvc1.1.6.L93.B0" }) + audio({ codecs: "ec-3" })),
    native: true,
  },
  {
    name: "cenc with its key",
    xml: clear(video({ cp: protection("cenc", KID_A) }) + audio({ cp: protection("cenc", KID_A) })),
    opts: { keyKids: [KID_A.toUpperCase()] },
    native: true,
    encrypted: true,
    kids: [KID_A],
  },
  {
    name: "cbcs, video and audio under different KIDs, both keys (not rotation)",
    xml: clear(video({ cp: protection("cbcs", KID_A) }) + audio({ cp: protection("cbcs", KID_B) })),
    opts: { keyKids: [uuid(KID_A), KID_B] },
    native: true,
    encrypted: true,
    kids: [KID_A, KID_B],
  },
  {
    name: "encrypted, no keys configured at all",
    xml: clear(video({ cp: protection("cenc", KID_A) })),
    native: false,
    reason: ["no keys are configured"],
    encrypted: true,
    kids: [KID_A],
  },
  {
    name: "encrypted, keys configured but not for this KID",
    xml: clear(video({ cp: protection("cenc", KID_A) })),
    opts: { keyKids: [KID_B] },
    native: false,
    reason: [`no key is configured for KID ${KID_A}`],
  },
  {
    name: "ContentProtection without cenc:default_KID",
    xml: clear(video({ cp: protection("cenc") })),
    opts: { keyKids: [KID_A] },
    native: false,
    reason: ["without cenc:default_KID"],
    encrypted: true,
    kids: [],
  },
  {
    name: "scheme other than cenc/cbcs/cens/cbc1",
    xml: clear(video({ cp: protection("piff", KID_A) })),
    opts: { keyKids: [KID_A] },
    native: false,
    reason: ["scheme 'piff'"],
  },
  {
    name: "key rotation across Periods, keys for both",
    xml: mpd(
      period("p0", video({ cp: protection("cenc", KID_A) })) +
        period("p1", video({ cp: protection("cenc", KID_B) }), "PT60S"),
    ),
    opts: { keyKids: [KID_A, KID_B] },
    native: false,
    reason: ["video changes KID across Periods (2 KIDs: key rotation)"],
    kids: [KID_A, KID_B],
  },
  {
    name: "same KID in two Periods is not rotation",
    xml: mpd(
      period("p0", video({ cp: protection("cenc", KID_A) })) +
        period("p1", video({ cp: protection("cenc", KID_A) }), "PT60S"),
    ),
    opts: { keyKids: [KID_A] },
    native: true,
  },
  {
    name: "several problems are all reported",
    xml: clear(video({ segments: SEGMENT_LIST }) + audio({ codecs: "vorbis" })),
    native: false,
    reason: ["SegmentList", "; ", "codec vorbis"],
  },
  {
    name: "no video or audio at all",
    xml: clear(SUBTITLES_SEGMENT_BASE),
    native: false,
    reason: ["Period p0 has no video or audio Representation"],
  },
];

describe("inspectNativeSupport", () => {
  for (const row of rows) {
    it(row.name, () => {
      const parsed = parseMpd(row.xml, { url: "http://127.0.0.1:9/live/manifest.mpd" });
      assert.ok(parsed.ok, parsed.ok ? "" : parsed.error.message);
      const got = inspectNativeSupport(parsed.value, row.opts);
      assert.equal(got.native_supported, row.native, got.reason ?? "");
      assert.equal(got.suggested_engine, row.native ? "native" : "ffmpeg");
      if (row.native) assert.equal(got.reason, null);
      for (const fragment of row.reason ?? []) {
        assert.ok(got.reason?.includes(fragment), `"${got.reason}" lacks "${fragment}"`);
      }
      if (row.encrypted !== undefined) assert.equal(got.encrypted, row.encrypted);
      if (row.kids !== undefined) assert.deepEqual(got.kids, row.kids);
    });
  }

  it("never includes key material: only KIDs appear", () => {
    const got = inspectMpdText(
      clear(video({ cp: protection("cenc", KID_A) })),
      "http://127.0.0.1/m.mpd",
      {
        keyKids: [KID_B],
      },
    );
    assert.deepEqual(Object.keys(got).sort(), [
      "encrypted",
      "kids",
      "native_supported",
      "reason",
      "suggested_engine",
    ]);
  });

  it("an MPD that does not parse suggests ffmpeg and names the element", () => {
    const got = inspectMpdText("<MPD><Period>", "http://127.0.0.1/m.mpd");
    assert.equal(got.native_supported, false);
    assert.equal(got.suggested_engine, "ffmpeg");
    assert.match(got.reason ?? "", /^the MPD did not parse \(/);
  });
});
