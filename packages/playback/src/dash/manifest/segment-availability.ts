import { resolveSegmentUrl } from "./base-url.js";
import type { Mpd, Period, Representation, Result, SegmentTemplate } from "./mpd-model.js";
import { expandTimeline, type TimelineSegment } from "./segment-timeline.js";
import { type CompiledTemplate, compileTemplate, expandTemplate } from "./template-url.js";

/** A media segment that can be fetched now (or, for a static MPD, at all). */
export interface AvailableSegment {
  readonly periodId: string;
  /** Period start on the MPD timeline, seconds. */
  readonly periodStart: number;
  readonly number: number;
  /** Segment start on the media timeline, @timescale units ($Time$ value). */
  readonly time: bigint;
  /** Duration in @timescale units. */
  readonly duration: bigint;
  readonly timescale: number;
  /** Start on the MPD timeline in seconds: Period start + (time - presentationTimeOffset) / timescale. */
  readonly start: number;
  readonly durationSec: number;
  readonly url: string;
  /** Epoch ms from which the segment may be requested (-Infinity for static MPDs). */
  readonly availabilityStartMs: number;
  /** Epoch ms after which it leaves the time-shift buffer (Infinity when unbounded). */
  readonly availabilityEndMs: number;
  /** Wall-clock time of the segment start (availabilityStartTime + start), for EXT-X-PROGRAM-DATE-TIME. */
  readonly wallClockStartMs?: number;
}

/** Segments of one Representation in one Period. */
export interface RepresentationSegments {
  readonly initializationUrl?: string;
  readonly segments: readonly AvailableSegment[];
  /** False when segments are announced before they are complete (low-latency chunked delivery). */
  readonly availabilityTimeComplete: boolean;
}

export interface AvailabilityOptions {
  /** Local wall clock, epoch ms. */
  readonly nowMs: number;
  /** Offset from {@link clockOffsetFromUtcTiming}; server time = nowMs + clockOffsetMs. */
  readonly clockOffsetMs?: number;
  /** Keep at most this many (newest) segments; default 100 000. */
  readonly maxSegments?: number;
}

/** Convert a (possibly fractional) span in ms to @timescale ticks, flooring; negative spans become -1. */
function msToTicks(ms: number, timescale: number): bigint {
  if (ms < 0) return -1n;
  return (BigInt(Math.floor(ms)) * BigInt(timescale)) / 1000n;
}

/**
 * Segments of `rep` that are available at `nowMs` (ISO/IEC 23009-1 5.3.9.5.3 and Annex A.3):
 * a segment of a dynamic MPD becomes available at availabilityStartTime + Period@start +
 * its end time − availabilityTimeOffset, and stays available until its end time plus
 * timeShiftBufferDepth. For @duration templates the end of segment n is
 * (n − startNumber + 1)·@duration. A static MPD lists every segment of the Period.
 */
export function listAvailableSegments(
  mpd: Mpd,
  period: Period,
  rep: Representation,
  opts: AvailabilityOptions,
): Result<RepresentationSegments> {
  const element = `Representation[${rep.id}]`;
  if (rep.addressing.kind !== "template") {
    return {
      ok: false,
      error: {
        element,
        message: `unsupported addressing ${rep.addressing.scheme}: ${rep.addressing.reason}`,
      },
    };
  }
  const tpl = rep.addressing.template;
  const media = compileTemplate(tpl.media, element);
  if (!media.ok) return media;
  const ts = tpl.timescale;
  const pto = tpl.presentationTimeOffset;
  const dynamic = mpd.type === "dynamic";
  const ast = mpd.availabilityStartTime;
  // 5.3.9.5.3 / BaseURL: the availability time offsets of BaseURL and SegmentTemplate add up.
  const ato = tpl.availabilityTimeOffset + rep.baseUrlAvailabilityTimeOffset;
  const tsbd = mpd.timeShiftBufferDepth ?? Infinity;
  const periodEndTicks =
    period.end === undefined
      ? undefined
      : pto + BigInt(Math.round((period.end - period.start) * ts));

  let from: bigint | undefined;
  let until: bigint | undefined;
  if (dynamic) {
    if (ast === undefined)
      return {
        ok: false,
        error: { element: "MPD", message: "dynamic MPD without availabilityStartTime" },
      };
    const elapsedMs = opts.nowMs + (opts.clockOffsetMs ?? 0) - (ast + period.start * 1000);
    const edge = msToTicks(elapsedMs + (Number.isFinite(ato) ? ato * 1000 : 0), ts);
    // availabilityTimeOffset="INF" (5.3.9.5.3): every segment up to the Period end is available.
    until = Number.isFinite(ato) || periodEndTicks === undefined ? pto + edge : undefined;
    if (Number.isFinite(tsbd) && elapsedMs - tsbd * 1000 > 0)
      from = pto + msToTicks(elapsedMs - tsbd * 1000, ts);
    if (edge < 0n) return { ok: true, value: withInit(rep, tpl, []) };
  }

  let raw: TimelineSegment[];
  if (tpl.timeline) {
    const expanded = expandTimeline(tpl.timeline, {
      startNumber: tpl.startNumber,
      ...(periodEndTicks === undefined ? {} : { periodEnd: periodEndTicks }),
      ...(from === undefined ? {} : { from }),
      ...(until === undefined ? {} : { until }),
      ...(opts.maxSegments === undefined ? {} : { maxSegments: opts.maxSegments }),
    });
    if (!expanded.ok) return expanded;
    raw = expanded.value;
  } else {
    const numbered = numberedSegments(
      tpl,
      periodEndTicks,
      from,
      until,
      opts.maxSegments ?? 100_000,
      element,
    );
    if (!numbered.ok) return numbered;
    raw = numbered.value;
  }
  if (tpl.endNumber !== undefined) raw = raw.filter((s) => s.number <= (tpl.endNumber as number));

  const segments: AvailableSegment[] = [];
  for (const s of raw) {
    const start = period.start + Number(s.time - pto) / ts;
    const durationSec = Number(s.duration) / ts;
    let url: string;
    try {
      url = resolveSegmentUrl(rep.baseUrl, expand(media.value, rep, s));
    } catch {
      return {
        ok: false,
        error: { element, message: `segment URL for number ${s.number} cannot be resolved` },
      };
    }
    const seg: AvailableSegment = {
      periodId: period.id,
      periodStart: period.start,
      number: s.number,
      time: s.time,
      duration: s.duration,
      timescale: ts,
      start,
      durationSec,
      url,
      availabilityStartMs:
        dynamic && ast !== undefined ? ast + (start + durationSec - ato) * 1000 : -Infinity,
      availabilityEndMs:
        dynamic && ast !== undefined ? ast + (start + durationSec + tsbd) * 1000 : Infinity,
      ...(ast === undefined ? {} : { wallClockStartMs: ast + start * 1000 }),
    };
    segments.push(seg);
  }
  return { ok: true, value: withInit(rep, tpl, segments) };
}

function expand(media: CompiledTemplate, rep: Representation, s: TimelineSegment): string {
  return expandTemplate(media, {
    representationId: rep.id,
    bandwidth: rep.bandwidth,
    number: s.number,
    time: s.time,
  });
}

function withInit(
  rep: Representation,
  tpl: SegmentTemplate,
  segments: AvailableSegment[],
): RepresentationSegments {
  const base = { segments, availabilityTimeComplete: tpl.availabilityTimeComplete };
  if (tpl.initialization === undefined) return base;
  const init = compileTemplate(tpl.initialization, "SegmentTemplate", "initialization");
  if (!init.ok) return base;
  const ref = expandTemplate(init.value, { representationId: rep.id, bandwidth: rep.bandwidth });
  return { ...base, initializationUrl: resolveSegmentUrl(rep.baseUrl, ref) };
}

/** @duration addressing: segment k (0-based) covers [k·D, (k+1)·D) after the presentation time offset. */
function numberedSegments(
  tpl: SegmentTemplate,
  periodEnd: bigint | undefined,
  from: bigint | undefined,
  until: bigint | undefined,
  max: number,
  element: string,
): Result<TimelineSegment[]> {
  const d = BigInt(tpl.duration ?? 0);
  const pto = tpl.presentationTimeOffset;
  let kTo: bigint | undefined;
  if (until !== undefined) kTo = until - pto <= 0n ? 0n : (until - pto) / d;
  if (periodEnd !== undefined) {
    const inPeriod = periodEnd - pto <= 0n ? 0n : (periodEnd - pto + d - 1n) / d;
    kTo = kTo === undefined || inPeriod < kTo ? inPeriod : kTo;
  }
  if (tpl.endNumber !== undefined) {
    const byEnd = BigInt(tpl.endNumber - tpl.startNumber + 1);
    kTo = kTo === undefined || byEnd < kTo ? byEnd : kTo;
  }
  if (kTo === undefined) {
    return {
      ok: false,
      error: {
        element,
        message: "@duration addressing without a Period end or live edge has no last segment",
      },
    };
  }
  let kFrom = from === undefined || from - pto <= 0n ? 0n : (from - pto) / d;
  if (kTo - kFrom > BigInt(max)) kFrom = kTo - BigInt(max);
  const out: TimelineSegment[] = [];
  for (let k = kFrom; k < kTo; k++) {
    out.push({ number: tpl.startNumber + Number(k), time: pto + k * d, duration: d });
  }
  return { ok: true, value: out };
}
