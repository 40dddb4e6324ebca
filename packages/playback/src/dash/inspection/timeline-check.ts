import type { Mpd, Representation, SegmentTemplate } from "../manifest/mpd-model.js";

/**
 * Shortest segment the native engine accepts. Real segments last 0.5 s and up (LL-DASH
 * shortens chunks, not segments); a 1-tick or 1 ns segment only makes every listing of
 * the live window enumerate millions of URLs.
 */
export const MIN_SEGMENT_MS = 50;
/** Most segments one SegmentTimeline may declare through S@r (10^6 × 2 s is 23 days). */
export const MAX_DECLARED_SEGMENTS = 1_000_000;

function durationMs(ticks: bigint, timescale: number): number {
  return (Number(ticks) * 1000) / timescale;
}

/**
 * ISO/IEC 23009-1 5.3.9.6: an S@t may not start before the end of the previous S run.
 * A timeline that does (the standard's own example G.22 of a live failover) cannot be
 * addressed segment by segment, so the inspection sends it to the compatibility engine.
 */
export function timelineOverlap(rep: Representation): string | undefined {
  const tpl = template(rep);
  if (tpl?.timeline === undefined) return undefined;
  let end: bigint | undefined;
  for (const [i, e] of tpl.timeline.entries()) {
    const start = e.t ?? end ?? 0n;
    if (e.t !== undefined && end !== undefined && e.t < end)
      return `Representation ${rep.id} has a SegmentTimeline whose S[${i}]@t=${e.t} overlaps the previous segments (ending at ${end})`;
    // r=-1 runs up to the next S@t; the next entry checks against that.
    end = e.r >= 0 ? start + BigInt(e.r + 1) * e.d : undefined;
  }
  return undefined;
}

/**
 * Addressing no real source writes and that would only cost the engine memory and CPU:
 * segments shorter than {@link MIN_SEGMENT_MS}, or a timeline declaring more than
 * {@link MAX_DECLARED_SEGMENTS}. The session fails with this message (issue 12 item 3).
 */
export function absurdAddressing(rep: Representation): string | undefined {
  const tpl = template(rep);
  if (tpl === undefined) return undefined;
  const where = `Representation ${rep.id}`;
  if (tpl.timeline !== undefined) {
    let declared = 0;
    for (const [i, e] of tpl.timeline.entries()) {
      const ms = durationMs(e.d, tpl.timescale);
      if (ms < MIN_SEGMENT_MS)
        return `${where}: SegmentTimeline S[${i}]@d=${e.d} at timescale ${tpl.timescale} is a ${formatMs(ms)} segment, below the ${MIN_SEGMENT_MS} ms minimum`;
      if (e.r >= 0) declared += e.r + 1;
      if (declared > MAX_DECLARED_SEGMENTS)
        return `${where}: SegmentTimeline declares more than ${MAX_DECLARED_SEGMENTS} segments (S[${i}]@r=${e.r})`;
    }
    return undefined;
  }
  if (tpl.duration !== undefined) {
    const ms = durationMs(BigInt(tpl.duration), tpl.timescale);
    if (ms < MIN_SEGMENT_MS)
      return `${where}: SegmentTemplate@duration=${tpl.duration} at timescale ${tpl.timescale} is a ${formatMs(ms)} segment, below the ${MIN_SEGMENT_MS} ms minimum`;
  }
  return undefined;
}

/** The first absurd addressing of any Representation of the MPD, or undefined. */
export function absurdMpdProblem(mpd: Mpd): string | undefined {
  for (const period of mpd.periods)
    for (const set of period.adaptationSets)
      for (const rep of set.representations) {
        const p = absurdAddressing(rep);
        if (p !== undefined) return p;
      }
  return undefined;
}

function template(rep: Representation): SegmentTemplate | undefined {
  return rep.addressing.kind === "template" ? rep.addressing.template : undefined;
}

function formatMs(ms: number): string {
  return ms >= 1 ? `${Math.round(ms)} ms` : `${ms.toPrecision(2)} ms`;
}
