import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FFMPEG_LIVE_MPD } from "../manifest/fixtures/ffmpeg-live-mpd.js";
import { MULTI_PERIOD_MPD } from "../manifest/fixtures/hand-written-mpds.js";
import type { Mpd } from "../manifest/mpd-model.js";
import { parseMpd } from "../manifest/mpd-parser.js";
import { type CursorPosition, nextSegment } from "./segment-cursor.js";

const parsed = parseMpd(FFMPEG_LIVE_MPD, { url: "http://127.0.0.1:8081/ch1/out.mpd" });
assert.ok(parsed.ok);
const mpd: Mpd = parsed.value;
const now = mpd.publishTime ?? 0;
const base = { mpd, prefs: {}, nowMs: now, clockOffsetMs: 0, startAtSec: undefined };
const at = (number: number, time: bigint): CursorPosition => ({
  periodId: "0",
  periodStart: 0,
  number,
  time,
  duration: 25600n,
  timescale: 12800,
});

describe("nextSegment over ffmpeg's live MPD (SegmentTimeline + $Number%05d$)", () => {
  it("starts with the segment covering the start time", () => {
    const n = nextSegment({ ...base, role: { kind: "video" }, last: undefined, startAtSec: 2.5 });
    assert.equal(n.kind, "segment");
    if (n.kind !== "segment") return;
    assert.equal(n.predicted, false);
    assert.equal(n.segment.number, 2);
    assert.equal(n.segment.url, "http://127.0.0.1:8081/ch1/chunk-stream0-00002.m4s");
    assert.equal(n.initUrl, "http://127.0.0.1:8081/ch1/init-stream0.m4s");
  });

  it("takes the next listed segment by media time, not list position", () => {
    const n = nextSegment({ ...base, role: { kind: "video" }, last: at(1, 0n) });
    assert.equal(n.kind === "segment" && n.segment.number, 2);
    assert.equal(n.kind === "segment" && n.predicted, false);
  });

  it("predicts the segment the encoder is writing after the last listed one (LL-DASH)", () => {
    const n = nextSegment({ ...base, role: { kind: "video" }, last: at(2, 25600n) });
    assert.equal(n.kind, "segment");
    if (n.kind !== "segment") return;
    assert.equal(n.predicted, true);
    assert.equal(n.segment.number, 3);
    assert.equal(n.segment.time, 51200n);
    assert.equal(n.segment.start, 4);
    assert.equal(n.segment.url, "http://127.0.0.1:8081/ch1/chunk-stream0-00003.m4s");
    assert.equal(n.segment.wallClockStartMs, (mpd.availabilityStartTime ?? 0) + 4000);
  });

  it("maps audio roles to the chosen language's set", () => {
    const n = nextSegment({
      ...base,
      prefs: { preferredAudioLanguages: ["de"] },
      role: { kind: "audio", index: 0 },
      last: undefined,
    });
    assert.equal(n.kind === "segment" && n.representation.id, "3");
  });

  it("ends after the last segment of a static MPD", () => {
    const fixed: Mpd = { ...mpd, type: "static", mediaPresentationDuration: 4 };
    const n = nextSegment({ ...base, mpd: fixed, role: { kind: "video" }, last: at(2, 25600n) });
    assert.equal(n.kind, "ended");
  });
});

describe("nextSegment across a Period change", () => {
  const multi = parseMpd(MULTI_PERIOD_MPD, { url: "https://cdn.example.com/x.mpd" });
  assert.ok(multi.ok);
  const input = {
    mpd: multi.value,
    prefs: {},
    nowMs: 0,
    clockOffsetMs: 0,
    startAtSec: undefined,
    role: { kind: "video" } as const,
  };
  it("walks the first Period's timeline (r=-1 up to the next S@t, then the Period end)", () => {
    const seen: number[] = [];
    let last: CursorPosition | undefined;
    for (;;) {
      const n = nextSegment({ ...input, last });
      if (n.kind !== "segment" || n.period.id !== "one") break;
      seen.push(n.segment.number);
      const s = n.segment;
      last = { ...s, duration: s.duration };
    }
    assert.deepEqual(seen, [100, 101, 102, 103, 104]);
  });
  it("continues with the next Period's first segment and its own representation", () => {
    const last: CursorPosition = {
      periodId: "one",
      periodStart: 0,
      number: 104,
      time: 12000n,
      duration: 1000n,
      timescale: 1000,
    };
    const n = nextSegment({ ...input, last });
    assert.equal(n.kind, "segment");
    if (n.kind !== "segment") return;
    assert.equal(n.period.id, "two");
    assert.equal(n.representation.id, "7");
    assert.equal(n.segment.number, 1);
    assert.equal(n.segment.url, "https://cdn.example.com/content/p2/7/000000000000.m4s");
    assert.equal(n.predicted, false);
  });
  it("ends after the last segment of the last Period (static MPD)", () => {
    const last: CursorPosition = {
      periodId: "two",
      periodStart: 8,
      number: 3,
      time: 8n,
      duration: 4n,
      timescale: 1,
    };
    assert.equal(nextSegment({ ...input, last }).kind, "ended");
  });
});
