import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LIVE_NUMBER_MPD } from "./fixtures/hand-written-mpds.js";
import { liveDelayFor, pickLiveStartIndex, type TimedSegment } from "./live-edge.js";
import { parseMpd } from "./mpd-parser.js";

const twoSecond = (n: number): TimedSegment[] =>
  Array.from({ length: n }, (_, i) => ({ start: i * 2, durationSec: 2 }));

describe("pickLiveStartIndex", () => {
  const cases: [string, TimedSegment[], number | undefined, number][] = [
    ["6 s delay over 2 s segments starts 3 segments back", twoSecond(10), 6, 7],
    ["a delay between boundaries rounds further back", twoSecond(10), 5, 7],
    ["zero delay starts at the newest", twoSecond(10), 0, 9],
    ["no delay signalled: three segments back", twoSecond(10), undefined, 7],
    ["delay longer than the window starts at the oldest", twoSecond(3), 60, 0],
    ["fewer segments than the fallback", twoSecond(2), undefined, 0],
    ["empty list", [], 6, -1],
    [
      "uneven durations",
      [
        { start: 0, durationSec: 4 },
        { start: 4, durationSec: 1 },
        { start: 5, durationSec: 1 },
      ],
      3,
      0,
    ],
  ];
  for (const [name, segs, delay, want] of cases)
    it(name, () => assert.equal(pickLiveStartIndex(segs, delay), want));
});

describe("liveDelayFor", () => {
  const r = parseMpd(LIVE_NUMBER_MPD, { url: "https://o.example/m.mpd" });
  assert.ok(r.ok);
  it("uses MPD@suggestedPresentationDelay", () => assert.equal(liveDelayFor(r.value), 6));
  it("an explicit delay wins", () => assert.equal(liveDelayFor(r.value, { delaySec: 2 }), 2));
});
