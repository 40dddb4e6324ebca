/** What the tracker needs to know about a segment; {@link AvailableSegment} satisfies it. */
export interface TrackableSegment {
  readonly periodId: string;
  readonly periodStart: number;
  readonly time: bigint;
  readonly duration: bigint;
  readonly timescale: number;
}

/** A segment with its HLS Media Sequence Number. */
export interface SequencedSegment<S extends TrackableSegment> {
  readonly msn: number;
  /** True when EXT-X-DISCONTINUITY must precede it (new Period, or a timeline gap). */
  readonly discontinuity: boolean;
  readonly segment: S;
}

interface LastPosition {
  readonly periodId: string;
  readonly periodStart: number;
  readonly time: bigint;
  readonly end: bigint;
}

/** Immutable state carried from one MPD refresh to the next. */
export interface SequenceState<S extends TrackableSegment> {
  /** Published window, oldest first. */
  readonly window: readonly SequencedSegment<S>[];
  readonly nextMsn: number;
  /** RFC 8216bis 4.4.3.3: discontinuities that have left the window. */
  readonly discontinuitySequence: number;
  readonly last?: LastPosition;
}

export interface MergeOptions {
  /** Segments kept in the window (older ones are dropped, oldest first). */
  readonly maxWindow: number;
  /**
   * A hole in the media timeline longer than this (seconds) inside one Period is published
   * as a discontinuity. Default: half of the following segment's duration.
   */
  readonly gapToleranceSec?: number;
}

export interface MergeResult<S extends TrackableSegment> {
  readonly state: SequenceState<S>;
  /** Segments appended by this refresh, in order. */
  readonly added: readonly SequencedSegment<S>[];
}

/** Fresh state; the first published segment gets `firstMsn`. */
export function createSequenceState<S extends TrackableSegment>(firstMsn = 0): SequenceState<S> {
  return { window: [], nextMsn: firstMsn, discontinuitySequence: 0 };
}

function compare(a: TrackableSegment, b: TrackableSegment): number {
  if (a.periodStart !== b.periodStart) return a.periodStart - b.periodStart;
  return a.time < b.time ? -1 : a.time > b.time ? 1 : 0;
}

/**
 * Fold the segments of a refreshed MPD into the published sequence. Segments are keyed by
 * (Period, media time), never by list position, so a refresh that lists fewer, more or
 * overlapping segments appends only what is new and Media Sequence Numbers only grow
 * (RFC 8216bis 6.2.2: the sequence number of a segment never changes, and segments are
 * only removed from the start). A Period change starts with a discontinuity
 * (RFC 8216bis 4.4.4.3), since timestamps and possibly codecs restart there.
 */
export function mergeRefresh<S extends TrackableSegment>(
  state: SequenceState<S>,
  segments: readonly S[],
  opts: MergeOptions,
): MergeResult<S> {
  const sorted = [...segments].sort(compare);
  const added: SequencedSegment<S>[] = [];
  let last = state.last;
  let nextMsn = state.nextMsn;
  for (const seg of sorted) {
    let discontinuity = false;
    if (last) {
      if (seg.periodId === last.periodId) {
        if (seg.time < last.end) continue; // already published (or overlapping it)
        const gapSec = Number(seg.time - last.end) / seg.timescale;
        const tolerance = opts.gapToleranceSec ?? Number(seg.duration) / seg.timescale / 2;
        discontinuity = gapSec > tolerance;
      } else {
        if (seg.periodStart < last.periodStart) continue; // a Period we have already left
        discontinuity = true;
      }
    }
    added.push({ msn: nextMsn, discontinuity, segment: seg });
    nextMsn += 1;
    last = {
      periodId: seg.periodId,
      periodStart: seg.periodStart,
      time: seg.time,
      end: seg.time + seg.duration,
    };
  }
  const window = [...state.window, ...added];
  let discontinuitySequence = state.discontinuitySequence;
  const drop = Math.max(0, window.length - Math.max(1, opts.maxWindow));
  for (const removed of window.splice(0, drop)) {
    if (removed.discontinuity) discontinuitySequence += 1;
  }
  const next: SequenceState<S> = {
    window,
    nextMsn,
    discontinuitySequence,
    ...(last ? { last } : {}),
  };
  return { state: next, added };
}
