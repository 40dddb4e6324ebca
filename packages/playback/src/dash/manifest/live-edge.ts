import type { Mpd } from "./mpd-model.js";

/** The minimum a start position needs from a segment. */
export interface TimedSegment {
  readonly start: number;
  readonly durationSec: number;
}

export interface LiveStartOptions {
  /** Seconds behind the newest segment's end; defaults to MPD@suggestedPresentationDelay. */
  readonly delaySec?: number;
  /** Without any delay signalled, stay this many segments behind the newest (default 3). */
  readonly fallbackSegments?: number;
}

/** The delay the packager should keep behind the live edge for this MPD. */
export function liveDelayFor(mpd: Mpd, opts: LiveStartOptions = {}): number | undefined {
  return opts.delaySec ?? mpd.suggestedPresentationDelay;
}

/**
 * Index of the segment a new packager should start with: the newest segment that begins
 * at least `delay` before the end of the newest available segment (ISO/IEC 23009-1
 * 5.3.1.2: suggestedPresentationDelay is the distance behind the live edge a client
 * should present at). Without a delay it stays `fallbackSegments` segments behind, which
 * matches the three-target-duration hold-back HLS players apply (RFC 8216bis 6.3.3).
 * Returns -1 for an empty list.
 * @example pickLiveStartIndex(segments, 6) // index of the segment starting >= 6 s before the edge
 */
export function pickLiveStartIndex(
  segments: readonly TimedSegment[],
  delaySec: number | undefined,
  fallbackSegments = 3,
): number {
  const last = segments.length - 1;
  const newest = segments[last];
  if (!newest) return -1;
  if (delaySec === undefined) return Math.max(0, segments.length - fallbackSegments);
  const edge = newest.start + newest.durationSec;
  for (let i = last; i >= 0; i--) {
    const seg = segments[i];
    if (seg && edge - seg.start >= delaySec - 1e-9) return i;
  }
  return 0;
}
