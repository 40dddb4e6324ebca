import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TimelineEntry } from "./mpd-model.js";
import { expandTimeline, type TimelineWindow } from "./segment-timeline.js";

const S = (d: number, r = 0, t?: number | bigint): TimelineEntry => ({
  d: BigInt(d),
  r,
  ...(t === undefined ? {} : { t: BigInt(t) }),
});
const times = (entries: TimelineEntry[], w: TimelineWindow): string => {
  const r = expandTimeline(entries, w);
  if (!r.ok) return `error: ${r.error.message}`;
  return r.value.map((s) => `${s.number}@${s.time}+${s.duration}`).join(" ");
};

describe("expandTimeline (ISO/IEC 23009-1 5.3.9.6)", () => {
  const cases: [string, TimelineEntry[], TimelineWindow, string][] = [
    ["absent first @t is 0, @r repeats", [S(10, 2)], { startNumber: 1 }, "1@0+10 2@10+10 3@20+10"],
    [
      "@t continues runs and leaves gaps",
      [S(10, 1, 100), S(5, 0, 130)],
      { startNumber: 7 },
      "7@100+10 8@110+10 9@130+5",
    ],
    [
      "r=-1 up to the next S@t",
      [S(10, -1, 0), S(4, 0, 30)],
      { startNumber: 0 },
      "0@0+10 1@10+10 2@20+10 3@30+4",
    ],
    [
      "r=-1 up to an unaligned next S@t cuts the last repeat short",
      [S(10, -1, 0), S(4, 0, 25)],
      { startNumber: 0 },
      "0@0+10 1@10+10 2@20+5 3@25+4",
    ],
    [
      "r=-1 up to the Period end",
      [S(10, -1, 0)],
      { startNumber: 1, periodEnd: 30n },
      "1@0+10 2@10+10 3@20+10",
    ],
    [
      "r=-1 at the live edge only lists complete segments",
      [S(10, -1, 0)],
      { startNumber: 1, until: 35n },
      "1@0+10 2@10+10 3@20+10",
    ],
    [
      "live edge and Period end: the earlier wins",
      [S(10, -1, 0)],
      { startNumber: 1, until: 100n, periodEnd: 20n },
      "1@0+10 2@10+10",
    ],
    [
      "time-shift window drops segments ending at or before `from`",
      [S(10, 5)],
      { startNumber: 1, from: 30n },
      "4@30+10 5@40+10 6@50+10",
    ],
    [
      "explicit entries beyond the live edge are not yet available",
      [S(10, 5)],
      { startNumber: 1, until: 25n },
      "1@0+10 2@10+10",
    ],
    [
      "S@n resets numbering",
      [S(10, 0), { d: 10n, r: 0, n: 50 }],
      { startNumber: 1 },
      "1@0+10 50@10+10",
    ],
    [
      "maxSegments keeps the newest",
      [S(1, 9)],
      { startNumber: 1, maxSegments: 3 },
      "8@7+1 9@8+1 10@9+1",
    ],
    [
      "maxSegments across runs",
      [S(1, 2), S(2, 2)],
      { startNumber: 1, maxSegments: 4 },
      "3@2+1 4@3+2 5@5+2 6@7+2",
    ],
    [
      "huge r=-1 is computed, not iterated",
      [S(1, -1, 0)],
      { startNumber: 1, from: 10_000_000_000n - 2n, until: 10_000_000_000n },
      "9999999999@9999999998+1 10000000000@9999999999+1",
    ],
    [
      "overlap is an error",
      [S(10, 1, 0), S(10, 0, 15)],
      { startNumber: 1 },
      "error: S[1]@t=15 overlaps the previous segment ending at 20",
    ],
    [
      "open r=-1 without bounds is an error",
      [S(10, -1, 0)],
      { startNumber: 1 },
      "error: S[0]@r=-1 is the last S and neither a Period end nor a live edge bounds it",
    ],
    [
      "r=-1 followed by S without @t is an error",
      [S(10, -1, 0), S(10)],
      { startNumber: 1 },
      "error: S[0]@r=-1 must be followed by an S with @t",
    ],
    // Found by tests/src/property/mpd-timeline.property.test.ts.
    [
      "r=-1 whose next S@t goes back before its start is an error (no repeated times)",
      [S(1, 0), S(1, -1), S(1, 0, 0)],
      { startNumber: 0 },
      "error: S[2]@t=0 overlaps the previous segment ending at 1",
    ],
    [
      "a repeat cut short at the next S@t is complete once the live edge reaches that S@t",
      [S(2, -1, 0), S(1, 0, 5)],
      { startNumber: 0, until: 5n },
      "0@0+2 1@2+2 2@4+1",
    ],
    [
      "a repeat cut short at the next S@t ends there: a window starting at that S@t drops it",
      [S(2, -1, 0), S(1, 0, 5)],
      { startNumber: 0, from: 5n },
      "3@5+1",
    ],
  ];
  for (const [name, entries, window, want] of cases)
    it(name, () => assert.equal(times(entries, window), want));

  it("keeps S@t beyond 2^53 exact", () => {
    const t = 2n ** 60n + 1n;
    const r = expandTimeline([S(3, 1, t)], { startNumber: 1 });
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.map((s) => s.time),
      [t, t + 3n],
    );
  });
});
