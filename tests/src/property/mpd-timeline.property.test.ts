import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandTimeline } from "@svc/playback/segment-timeline";
import fc from "fast-check";
import { runs } from "./property-runs.js";

// Property: SegmentTimeline expansion (ISO/IEC 23009-1 5.3.9.6) equals an oracle that walks
// the timeline one segment at a time and then applies the window as documented on
// `TimelineWindow`: segments start before the Period end, end after `from`, end at or before
// `until` (the live edge), and only the newest `maxSegments` are kept. The code under test
// computes repeats arithmetically; the oracle never does.

interface Entry {
  t?: bigint;
  n?: number;
  d: bigint;
  r: number;
}
interface Window {
  startNumber: number;
  periodEnd?: bigint;
  from?: bigint;
  until?: bigint;
  maxSegments?: number;
}
type Segment = { number: number; time: bigint; duration: bigint };

function oracle(entries: Entry[], w: Window): Segment[] | "error" {
  const all: Segment[] = [];
  let time: bigint | undefined;
  let number = w.startNumber;
  const push = (duration: bigint) => {
    all.push({ number, time: time!, duration });
    time = time! + duration;
    number += 1;
  };
  for (const [i, e] of entries.entries()) {
    if (e.t !== undefined) {
      if (time !== undefined && e.t < time) return "error"; // overlaps the previous run
      time = e.t;
    } else if (time === undefined) time = 0n;
    if (e.n !== undefined) number = e.n;
    if (e.r >= 0) {
      for (let k = 0; k <= e.r; k++) push(e.d);
      continue;
    }
    const next = entries[i + 1];
    if (next !== undefined) {
      if (next.t === undefined) return "error";
      // Repeats until the next S@t; a last repeat that would overlap it is cut short.
      while (time < next.t) push([next.t - time, e.d].sort((a, b) => (a < b ? -1 : 1))[0]!);
    } else if (w.periodEnd !== undefined) {
      while (time < w.periodEnd && (w.until === undefined || time + e.d <= w.until)) push(e.d);
    } else if (w.until !== undefined) {
      while (time + e.d <= w.until) push(e.d);
    } else return "error";
  }
  const kept = all.filter(
    (s) =>
      (w.periodEnd === undefined || s.time < w.periodEnd) &&
      (w.from === undefined || s.time + s.duration > w.from) &&
      (w.until === undefined || s.time + s.duration <= w.until),
  );
  return kept.slice(-(w.maxSegments ?? 100_000));
}

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
const small = (max: number) => fc.integer({ min: 0, max }).map(BigInt);
const entry = fc.record(
  {
    t: small(2000),
    n: fc.integer({ min: 0, max: 1000 }),
    d: fc.integer({ min: 1, max: 40 }).map(BigInt),
    r: fc.integer({ min: -1, max: 6 }),
  },
  { requiredKeys: ["d", "r"] },
);
/** Mostly well-formed timelines: S@t values ascending with gaps, some S without @t. */
const timeline = fc.array(entry, { minLength: 1, maxLength: 6 }).map((es) => {
  let at = 0n;
  return es.map((e) => {
    if (e.t === undefined) return e;
    at += e.t % 300n; // ascending start times, gaps allowed
    return { ...e, t: at };
  });
});
const window = fc.record(
  {
    startNumber: fc.integer({ min: 0, max: 100 }),
    periodEnd: small(3000),
    from: small(2500),
    until: small(3000),
    maxSegments: fc.integer({ min: 1, max: 60 }),
  },
  { requiredKeys: ["startNumber"] },
);

describe("property: MPD SegmentTimeline expansion", () => {
  it("equals a one-segment-at-a-time oracle (r=-1, repeats, gaps, windows, S@n)", () => {
    fc.assert(
      fc.property(timeline, window, (entries, w) => {
        const got = expandTimeline(entries, w);
        const want = oracle(entries, w);
        if (want === "error") assert.equal(got.ok, false, show(got));
        else {
          assert.ok(got.ok, show(got));
          assert.deepEqual(got.value, want);
        }
      }),
      runs(3000),
    );
  });

  it("an S@r=-1 spanning years costs only the window (no materialised repeats)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }).map(BigInt),
        small(1_000_000),
        // ~10 s and ~31 years at 1 MHz: at least 10^4 repeats before the window.
        fc.constantFrom(10n ** 7n, 10n ** 15n),
        (d, back, until) => {
          // The work is counted, not timed: reads of S@d, a few per segment in the
          // window; expanding every repeat would read it until/d (>= 10^4) times.
          let reads = 0;
          const open = {
            t: 0n,
            r: -1,
            get d() {
              reads += 1;
              return d;
            },
          };
          const got = expandTimeline([open], {
            startNumber: 1,
            until,
            from: until - back,
            maxSegments: 50,
          });
          assert.ok(got.ok);
          assert.ok(got.value.length <= 50);
          const last = got.value.at(-1);
          if (last !== undefined) assert.ok(last.time + last.duration <= until);
          assert.ok(reads <= 4 * 50 + 16, `${reads} reads of S@d for ${got.value.length} segments`);
        },
      ),
      runs(200),
    );
  });
});
