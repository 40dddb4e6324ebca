import {
  mergeRefresh,
  type SequenceState,
  type TrackableSegment,
} from "../manifest/sequence-tracker.js";
import type { CursorPosition } from "./segment-cursor.js";

// MSNs and discontinuities of the segments a pump publishes, on top of sequence-tracker:
// the segment in progress must know them before it is complete (its parts are listed).

export function trackable(p: CursorPosition): TrackableSegment {
  return {
    periodId: p.periodId,
    periodStart: p.periodStart,
    time: p.time,
    duration: p.duration,
    timescale: p.timescale,
  };
}

/**
 * The discontinuity rule of {@link mergeRefresh}, applied before the segment is
 * complete so the parts of the segment in progress carry it already.
 */
export function startsDiscontinuity(
  seq: SequenceState<TrackableSegment>,
  s: TrackableSegment,
): boolean {
  const l = seq.last;
  if (!l) return false;
  if (l.periodId !== s.periodId) return true;
  return Number(s.time - l.end) / s.timescale > Number(s.duration) / s.timescale / 2;
}

/**
 * A previous segment whose measured duration runs a few ticks past the start of `s`
 * must not make the tracker drop `s` as already published: its end is trimmed to it.
 */
export function trimmedTo(
  seq: SequenceState<TrackableSegment>,
  s: TrackableSegment,
): SequenceState<TrackableSegment> {
  const l = seq.last;
  if (!l || l.periodId !== s.periodId || s.time >= l.end || s.time <= l.time) return seq;
  return { ...seq, last: { ...l, end: s.time } };
}

/** Folds a completed segment into the sequence state (monotonic MSN, discontinuities). */
export function advance(
  seq: SequenceState<TrackableSegment>,
  p: CursorPosition,
  maxWindow: number,
): SequenceState<TrackableSegment> {
  const s = trackable(p);
  const base = trimmedTo(seq, s);
  const tolerance = Number(s.duration) / s.timescale / 2;
  return mergeRefresh(base, [s], { maxWindow, gapToleranceSec: tolerance }).state;
}
