import type { Result, TimelineEntry } from "./mpd-model.js";

/** One segment described by a SegmentTimeline, on the media timeline (@timescale units). */
export interface TimelineSegment {
  readonly number: number;
  readonly time: bigint;
  readonly duration: bigint;
}

/** Bounds for expanding a timeline; all values in @timescale units on the media timeline (PTO included). */
export interface TimelineWindow {
  readonly startNumber: number;
  /** Segments must start before this (the Period end). Also bounds an open S@r=-1. */
  readonly periodEnd?: bigint;
  /** Only segments that end after this are returned (the time-shift window). */
  readonly from?: bigint;
  /** Only segments that end at or before this are returned (the live edge). Also bounds an open S@r=-1. */
  readonly until?: bigint;
  /** Keep at most this many segments, the newest ones (default 100 000). */
  readonly maxSegments?: number;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a <= 0n ? 0n : (a + b - 1n) / b);
const floorDiv = (a: bigint, b: bigint): bigint => (a <= 0n ? 0n : a / b);
const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * Expand S elements into segments (ISO/IEC 23009-1 5.3.9.6). Repeats are computed
 * arithmetically, so an S@r=-1 that spans years is cheap: only segments inside the
 * window are materialised.
 *
 * S@r=-1 repeats until the next S@t, else the Period end, else (live edge) the last
 * segment that is complete by `until`.
 */
export function expandTimeline(
  entries: readonly TimelineEntry[],
  window: TimelineWindow,
  element = "SegmentTimeline/S",
): Result<TimelineSegment[]> {
  const fail = (message: string): Result<TimelineSegment[]> => ({
    ok: false,
    error: { element, message },
  });
  const max = window.maxSegments ?? 100_000;
  const out: TimelineSegment[] = [];
  let time: bigint | undefined;
  let number = window.startNumber;
  for (const [i, e] of entries.entries()) {
    if (e.t !== undefined) {
      // 5.3.9.6: S@t must not start before the end of the previous S run.
      if (time !== undefined && e.t < time)
        return fail(`S[${i}]@t=${e.t} overlaps the previous segment ending at ${time}`);
      time = e.t;
    } else if (time === undefined) {
      // 5.3.9.6: an absent @t on the first S means 0.
      time = 0n;
    }
    if (e.n !== undefined) number = e.n;
    let count: bigint;
    // With r=-1 up to a next S@t that is not a whole number of @d away, the last repeat is
    // cut short at that S@t instead of overlapping it.
    let runEnd: bigint | undefined;
    if (e.r >= 0) {
      count = BigInt(e.r) + 1n;
    } else {
      const next = entries[i + 1];
      if (next) {
        if (next.t === undefined) return fail(`S[${i}]@r=-1 must be followed by an S with @t`);
        // 5.3.9.6 again, for the S after an open run: its @t may not go back before this
        // run's start (a zero-length run, then a rewind, would repeat segment times).
        if (next.t < time)
          return fail(`S[${i + 1}]@t=${next.t} overlaps the previous segment ending at ${time}`);
        count = ceilDiv(next.t - time, e.d);
        runEnd = next.t;
      } else if (window.periodEnd !== undefined) {
        count = ceilDiv(window.periodEnd - time, e.d);
        if (window.until !== undefined) count = minBig(count, floorDiv(window.until - time, e.d));
      } else if (window.until !== undefined) {
        count = floorDiv(window.until - time, e.d);
      } else {
        return fail(
          `S[${i}]@r=-1 is the last S and neither a Period end nor a live edge bounds it`,
        );
      }
    }
    // A run cut short at the next S@t ends at runEnd, not at a whole @d: its last segment is
    // complete once `until` reaches runEnd, and it ends too early for any `from` past runEnd.
    const cut = runEnd;
    let kFrom =
      window.from === undefined
        ? 0n
        : cut !== undefined && window.from >= cut
          ? count
          : floorDiv(window.from - time, e.d);
    let kTo = count;
    if (window.until !== undefined && !(cut !== undefined && window.until >= cut))
      kTo = minBig(kTo, floorDiv(window.until - time, e.d));
    if (window.periodEnd !== undefined) kTo = minBig(kTo, ceilDiv(window.periodEnd - time, e.d));
    if (kFrom < kTo) {
      if (BigInt(out.length) + (kTo - kFrom) > BigInt(max)) {
        // Keep the newest segments: drop what precedes them in this run and earlier runs.
        const keep = BigInt(max);
        if (kTo - kFrom >= keep) {
          out.length = 0;
          kFrom = kTo - keep;
        } else {
          out.splice(0, out.length - Number(keep - (kTo - kFrom)));
        }
      }
      for (let k = kFrom; k < kTo; k++) {
        const start = time + k * e.d;
        const duration = runEnd !== undefined && start + e.d > runEnd ? runEnd - start : e.d;
        out.push({ number: number + Number(k), time: start, duration });
      }
    }
    time = runEnd ?? time + count * e.d;
    number += Number(count);
  }
  return { ok: true, value: out };
}
