import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  HNS_NOW,
  LIVE_NUMBER_MPD,
  LIVE_TIMELINE_MPD,
  MULTI_PERIOD_MPD,
  T0,
} from "./fixtures/hand-written-mpds.js";
import type { Mpd, Period, Representation } from "./mpd-model.js";
import { parseMpd } from "./mpd-parser.js";
import { type AvailabilityOptions, listAvailableSegments } from "./segment-availability.js";

function load(xml: string, url = "https://origin.example/ch/manifest.mpd"): Mpd {
  const r = parseMpd(xml, { url });
  if (!r.ok) assert.fail(`${r.error.element}: ${r.error.message}`);
  return r.value;
}
function pick(mpd: Mpd, periodIndex: number, id: string): [Period, Representation] {
  const period = mpd.periods[periodIndex];
  const rep = period?.adaptationSets.flatMap((s) => s.representations).find((r) => r.id === id);
  assert.ok(period && rep);
  return [period, rep];
}
function list(mpd: Mpd, periodIndex: number, id: string, opts: AvailabilityOptions) {
  const [period, rep] = pick(mpd, periodIndex, id);
  const r = listAvailableSegments(mpd, period, rep, opts);
  if (!r.ok) assert.fail(r.error.message);
  return r.value;
}

describe("listAvailableSegments: @duration Number template (dynamic)", () => {
  const mpd = load(LIVE_NUMBER_MPD);
  // now = AST + 100 s. Video has availabilityTimeOffset 1.5 s, audio none; TSBD 30 s.
  const cases: [string, string, AvailabilityOptions, number, number][] = [
    ["video, ATO lets the segment ending at 100 s in", "v720", { nowMs: T0 + 100_000 }, 45, 59],
    ["video just before the ATO-advanced edge", "v720", { nowMs: T0 + 100_000 - 501 }, 44, 59],
    [
      "video half a second later: segment 60 (ends 102 s) is available from 100.5 s",
      "v720",
      { nowMs: T0 + 100_500 },
      45,
      60,
    ],
    ["audio without ATO", "a-en", { nowMs: T0 + 100_000 }, 45, 59],
    ["audio one ms earlier misses the newest", "a-en", { nowMs: T0 + 99_999 }, 44, 58],
    [
      "clock offset is added to the local clock",
      "a-en",
      { nowMs: T0 + 99_000, clockOffsetMs: 1000 },
      45,
      59,
    ],
  ];
  for (const [name, id, opts, firstNumber, lastNumber] of cases) {
    it(name, () => {
      const segs = list(mpd, 0, id, opts).segments;
      assert.equal(segs[0]?.number, firstNumber);
      assert.equal(segs.at(-1)?.number, lastNumber);
    });
  }
  it("computes availability per ISO/IEC 23009-1 5.3.9.5.3: AST + PS + (n - startNumber + 1) * D - ATO", () => {
    const last = list(mpd, 0, "v720", { nowMs: T0 + 100_000 }).segments.at(-1);
    assert.ok(last);
    assert.equal(last.availabilityStartMs, T0 + (59 - 10 + 1) * 2000 - 1500);
    assert.equal(last.availabilityEndMs, T0 + 100_000 + 30_000);
    assert.equal(last.wallClockStartMs, T0 + 98_000);
    assert.equal(last.time, 98n * 90000n);
    assert.deepEqual([last.start, last.durationSec], [98, 2]);
    assert.equal(last.url, "https://origin.example/ch/v/v720/59.m4s");
  });
  it("reports init URL and chunked availability", () => {
    const r = list(mpd, 0, "v720", { nowMs: T0 + 100_000 });
    assert.equal(r.initializationUrl, "https://origin.example/ch/v/v720/init.mp4");
    assert.equal(r.availabilityTimeComplete, false);
  });
  it("nothing is available before the first segment completes", () => {
    assert.deepEqual(list(mpd, 0, "a-en", { nowMs: T0 + 1000 }).segments, []);
    assert.deepEqual(list(mpd, 0, "a-en", { nowMs: T0 - 60_000 }).segments, []);
  });
});

describe("listAvailableSegments: SegmentTimeline r=-1 at the live edge, $Time$ > 2^53", () => {
  const mpd = load(LIVE_TIMELINE_MPD);
  const nowMs = Number(HNS_NOW / 10_000n);
  it("lists the complete segments inside the 10 s time-shift buffer", () => {
    const segs = list(mpd, 0, "hd", { nowMs }).segments;
    // BaseURL@availabilityTimeOffset 0.5 s is not enough to pull in the 2 s segment in progress.
    assert.deepEqual(
      segs.map((s) => s.time - HNS_NOW),
      [-100_000_000n, -80_000_000n, -60_000_000n, -40_000_000n, -20_000_000n],
    );
    const last = segs.at(-1);
    assert.ok(last && last.time > BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal(last.url, `https://origin.example/ch/live/hd-${HNS_NOW - 20_000_000n}.m4s`);
    assert.equal(last.availabilityStartMs, nowMs - 500);
  });
  it("the BaseURL availabilityTimeOffset advances the edge", () => {
    const segs = list(mpd, 0, "hd", { nowMs: nowMs + 1_500 }).segments;
    assert.equal(segs.at(-1)?.time, HNS_NOW);
  });
});

describe("listAvailableSegments: static multi-period with PTO and merged templates", () => {
  const mpd = load(MULTI_PERIOD_MPD);
  const opts = { nowMs: 0 };
  it("absolute Representation BaseURL, %0Nd on RepresentationID, Number and Bandwidth", () => {
    const segs = list(mpd, 0, "7", opts).segments;
    assert.deepEqual(
      segs.map((s) => s.url.split("/").pop()),
      [
        "007_0005_00500000.m4s",
        "007_0006_00500000.m4s",
        "007_0007_00500000.m4s",
        "007_0008_00500000.m4s",
        "007_0009_00500000.m4s",
      ],
    );
    assert.equal(segs[0]?.url, "https://other.example.net/abs/007_0005_00500000.m4s");
    // presentationTimeOffset 5000 maps S@t=5000 to the Period start.
    assert.deepEqual(
      segs.map((s) => [s.start, s.durationSec]),
      [
        [0, 2],
        [2, 2],
        [4, 2],
        [6, 1],
        [7, 1],
      ],
    );
    assert.equal(segs[0]?.availabilityStartMs, -Infinity);
  });
  it("the Representation-level @startNumber merges over the inherited timeline", () => {
    const segs = list(mpd, 0, "8", opts).segments;
    assert.deepEqual(
      segs.map((s) => s.number),
      [100, 101, 102, 103, 104],
    );
    assert.equal(
      segs[0]?.url,
      "https://cdn.example.com/content/period1/video/r8/008_0100_00900000.m4s",
    );
  });
  it("second Period: @duration addressing with $Time%012d$ up to the presentation end", () => {
    const r = list(mpd, 1, "7", opts);
    assert.deepEqual(
      r.segments.map((s) => [s.number, s.start, s.url]),
      [
        [1, 8, "https://cdn.example.com/content/p2/7/000000000000.m4s"],
        [2, 12, "https://cdn.example.com/content/p2/7/000000000004.m4s"],
        [3, 16, "https://cdn.example.com/content/p2/7/000000000008.m4s"],
      ],
    );
    assert.equal(r.initializationUrl, undefined);
  });
  it("refuses unsupported addressing with its reason", () => {
    const [period, rep] = pick(mpd, 0, "7");
    const fake: Representation = {
      ...rep,
      addressing: { kind: "unsupported", scheme: "SegmentList", reason: "no" },
    };
    const r = listAvailableSegments(mpd, period, fake, opts);
    assert.equal(r.ok, false);
  });
});
