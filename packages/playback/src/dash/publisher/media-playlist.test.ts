import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type MediaPlaylistInput,
  type PublishedPart,
  type PublishedSegment,
  renderMediaPlaylist,
  renderMediaPlaylistWithFacts,
} from "./media-playlist.js";
import { validateMediaPlaylist } from "./playlist-validator.js";

const T0 = Date.UTC(2024, 0, 1);
const parts = (msn: number, n = 4, d = 0.5): PublishedPart[] =>
  Array.from({ length: n }, (_, i) => ({
    durationSec: d,
    uri: `s${msn}.p${i}.m4s`,
    independent: i === 0,
  }));
const segments = (first: number, count: number, withParts = true, dur = 2): PublishedSegment[] =>
  Array.from({ length: count }, (_, i) => ({
    msn: first + i,
    durationSec: dur,
    uri: `s${first + i}.m4s`,
    programDateTimeMs: T0 + i * dur * 1000,
    ...(withParts ? { parts: parts(first + i) } : {}),
  }));

const llInput = (segs: PublishedSegment[]): MediaPlaylistInput => ({
  targetDurationSec: 2,
  discontinuitySequence: 0,
  mapUri: "init.mp4",
  segments: segs,
  lowLatency: {
    partTargetSec: 0.5,
    pendingParts: parts((segs.at(-1)?.msn ?? 0) + 1, 2),
    preloadHintUri: `s${(segs.at(-1)?.msn ?? 0) + 1}.p2.m4s`,
    renditionReports: [
      { uri: "../audio-en/index.m3u8", lastMsn: (segs.at(-1)?.msn ?? 0) + 1, lastPart: 1 },
    ],
  },
});

describe("renderMediaPlaylist: low-latency", () => {
  it("renders the exact RFC 8216bis layout", () => {
    const text = renderMediaPlaylist(llInput(segments(10, 3)));
    assert.equal(
      text,
      [
        "#EXTM3U",
        "#EXT-X-VERSION:9",
        "#EXT-X-TARGETDURATION:2",
        "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,HOLD-BACK=6.000,PART-HOLD-BACK=1.500",
        "#EXT-X-PART-INF:PART-TARGET=0.500",
        "#EXT-X-MEDIA-SEQUENCE:10",
        "#EXT-X-DISCONTINUITY-SEQUENCE:0",
        '#EXT-X-MAP:URI="init.mp4"',
        "#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00.000Z",
        // Parts more than 3 target durations (6 s) from the end of the playlist (7 s) are gone.
        '#EXT-X-PART:DURATION=0.500,URI="s10.p2.m4s"',
        '#EXT-X-PART:DURATION=0.500,URI="s10.p3.m4s"',
        "#EXTINF:2.000,",
        "s10.m4s",
        '#EXT-X-PART:DURATION=0.500,URI="s11.p0.m4s",INDEPENDENT=YES',
        '#EXT-X-PART:DURATION=0.500,URI="s11.p1.m4s"',
        '#EXT-X-PART:DURATION=0.500,URI="s11.p2.m4s"',
        '#EXT-X-PART:DURATION=0.500,URI="s11.p3.m4s"',
        "#EXTINF:2.000,",
        "s11.m4s",
        '#EXT-X-PART:DURATION=0.500,URI="s12.p0.m4s",INDEPENDENT=YES',
        '#EXT-X-PART:DURATION=0.500,URI="s12.p1.m4s"',
        '#EXT-X-PART:DURATION=0.500,URI="s12.p2.m4s"',
        '#EXT-X-PART:DURATION=0.500,URI="s12.p3.m4s"',
        "#EXTINF:2.000,",
        "s12.m4s",
        '#EXT-X-PART:DURATION=0.500,URI="s13.p0.m4s",INDEPENDENT=YES',
        '#EXT-X-PART:DURATION=0.500,URI="s13.p1.m4s"',
        '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="s13.p2.m4s"',
        '#EXT-X-RENDITION-REPORT:URI="../audio-en/index.m3u8",LAST-MSN=13,LAST-PART=1',
        "",
      ].join("\n"),
    );
    assert.deepEqual(validateMediaPlaylist(text), []);
  });

  it("keeps only parts within three target durations in a long window", () => {
    const text = renderMediaPlaylist(llInput(segments(100, 12)));
    const listed = text
      .split("\n")
      .filter((l) => l.startsWith("#EXT-X-PART:"))
      .map((l) => /URI="s(\d+)\.p(\d)/.exec(l)?.slice(1).join("."));
    // end = 24 s + 1 s pending; window 6 s: parts starting at >= 19 s.
    assert.deepEqual(listed, [
      "109.2",
      "109.3",
      "110.0",
      "110.1",
      "110.2",
      "110.3",
      "111.0",
      "111.1",
      "111.2",
      "111.3",
      "112.0",
      "112.1",
    ]);
    assert.deepEqual(validateMediaPlaylist(text), []);
  });

  it("raises hold-backs to their floors and keeps larger configured values", () => {
    const low = renderMediaPlaylist({
      ...llInput(segments(1, 3)),
      holdBackSec: 1,
      lowLatency: { partTargetSec: 0.5, partHoldBackSec: 0.6 },
    });
    assert.match(low, /HOLD-BACK=6\.000,PART-HOLD-BACK=1\.500/);
    const high = renderMediaPlaylist({
      ...llInput(segments(1, 3)),
      holdBackSec: 9,
      canSkipUntilSec: 30,
      lowLatency: { partTargetSec: 0.5, partHoldBackSec: 2.25 },
    });
    assert.match(high, /CAN-SKIP-UNTIL=30\.000,HOLD-BACK=9\.000,PART-HOLD-BACK=2\.250/);
  });

  it("PART-TARGET is raised to the longest part rather than publishing an invalid playlist", () => {
    const segs = segments(1, 3);
    const { facts, text } = renderMediaPlaylistWithFacts({
      ...llInput(segs),
      lowLatency: { partTargetSec: 0.4 },
    });
    assert.equal(facts.partTarget, 0.5);
    assert.deepEqual(validateMediaPlaylist(text), []);
  });
});

describe("renderMediaPlaylist: delta updates (RFC 8216bis 6.2.5.1)", () => {
  const input = llInput(segments(200, 20));
  const full = renderMediaPlaylistWithFacts(input);
  const delta = renderMediaPlaylistWithFacts(input, { skip: "YES" });
  it("skips the segments ending at least CAN-SKIP-UNTIL before the last segment end", () => {
    // Last segment ends at 40 s, boundary 12 s: segments ending at <= 28 s (the first 14) go.
    assert.equal(delta.facts.skippedSegments, 14);
    const lines = delta.text.split("\n");
    assert.ok(lines.includes("#EXT-X-SKIP:SKIPPED-SEGMENTS=14"));
    assert.equal(lines.filter((l) => l.startsWith("#EXTINF")).length, 6);
    assert.equal(
      lines[lines.indexOf("#EXT-X-SKIP:SKIPPED-SEGMENTS=14") + 1],
      '#EXT-X-MAP:URI="init.mp4"',
    );
    assert.ok(
      lines.includes("#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:28.000Z"),
      "PDT restated on the first segment kept",
    );
    assert.ok(
      lines.includes("#EXT-X-MEDIA-SEQUENCE:200"),
      "media sequence still names the first (skipped) segment",
    );
    assert.deepEqual(validateMediaPlaylist(delta.text), []);
  });
  it("serves v2 like YES and keeps the version stable between full and delta responses", () => {
    assert.equal(renderMediaPlaylistWithFacts(input, { skip: "v2" }).facts.skippedSegments, 14);
    assert.equal(full.facts.version, 9);
    assert.equal(delta.facts.version, 9);
    assert.equal(full.facts.skippedSegments, 0);
  });
  it("ignores _HLS_skip when delta updates are disabled or the playlist ended", () => {
    assert.equal(
      renderMediaPlaylistWithFacts({ ...input, canSkipUntilSec: false }, { skip: "YES" }).facts
        .skippedSegments,
      0,
    );
    assert.equal(
      renderMediaPlaylistWithFacts({ ...input, endList: true }, { skip: "YES" }).facts
        .skippedSegments,
      0,
    );
  });
  it("a short window has nothing to skip", () => {
    const small = renderMediaPlaylistWithFacts(llInput(segments(1, 5)), { skip: "YES" });
    assert.equal(small.facts.skippedSegments, 0);
    assert.ok(!small.text.includes("EXT-X-SKIP"));
  });
});

describe("renderMediaPlaylist: plain live, discontinuities, VOD", () => {
  it("a Period change emits DISCONTINUITY, the new MAP and a PDT before the segment", () => {
    const segs = segments(1, 3, false);
    const changed: PublishedSegment[] = [
      segs[0]!,
      segs[1]!,
      { ...segs[2]!, discontinuity: true, mapUri: "init-p2.mp4", programDateTimeMs: T0 + 60_000 },
    ];
    const text = renderMediaPlaylist({
      targetDurationSec: 2,
      discontinuitySequence: 4,
      mapUri: "init.mp4",
      segments: changed,
    });
    assert.match(
      text,
      /s2\.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI="init-p2\.mp4"\n#EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:01:00\.000Z\n#EXTINF:2\.000,\ns3\.m4s/,
    );
    assert.match(text, /#EXT-X-DISCONTINUITY-SEQUENCE:4/);
    assert.match(
      text,
      /#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12\.000,HOLD-BACK=6\.000\n/,
      "no blocking or parts without low latency",
    );
    assert.ok(!text.includes("PART"));
    assert.deepEqual(validateMediaPlaylist(text), []);
  });
  it("target duration: rounding per 4.4.3.1, raised only when a segment needs it", () => {
    const cases: [number[], number | undefined, number][] = [
      [[2, 2.4, 1.96], 2, 2],
      [[2, 2.5], 2, 3],
      [[1.2], undefined, 1],
      [[5.9], 4, 6],
      [[2], 3.2, 4],
    ];
    for (const [durs, configured, want] of cases) {
      const segs = durs.map((d, i) => ({ msn: i, durationSec: d, uri: `${i}.m4s` }));
      const { facts, text } = renderMediaPlaylistWithFacts({
        ...(configured === undefined ? {} : { targetDurationSec: configured }),
        discontinuitySequence: 0,
        mapUri: "i.mp4",
        segments: segs,
      });
      assert.equal(facts.targetDuration, want, `durations ${durs} configured ${configured}`);
      assert.deepEqual(validateMediaPlaylist(text), []);
    }
  });
  it("an ended playlist has ENDLIST, no server control, no parts, no preload hint", () => {
    const text = renderMediaPlaylist({ ...llInput(segments(1, 3)), endList: true });
    assert.ok(text.endsWith("#EXT-X-ENDLIST\n"));
    assert.ok(!/SERVER-CONTROL|PART|PRELOAD|RENDITION-REPORT/.test(text));
    assert.match(text, /#EXT-X-VERSION:6\n/);
    assert.deepEqual(validateMediaPlaylist(text), []);
  });
  it("formats EXTINF with up to five decimals", () => {
    const text = renderMediaPlaylist({
      discontinuitySequence: 0,
      mapUri: "i.mp4",
      segments: [{ msn: 0, durationSec: 1.9626666, uri: "a.m4s" }],
    });
    assert.match(text, /#EXTINF:1\.96267,\na\.m4s/);
  });
  it("refuses a URI that cannot be a quoted-string", () => {
    assert.throws(
      () => renderMediaPlaylist({ ...llInput(segments(1, 1)), mapUri: 'bad"uri' }),
      TypeError,
    );
  });
});
