import { resolveSegmentUrl } from "../manifest/base-url.js";
import { pickLiveStartIndex } from "../manifest/live-edge.js";
import type { Mpd, Period, Representation } from "../manifest/mpd-model.js";
import { type AvailableSegment, listAvailableSegments } from "../manifest/segment-availability.js";
import { compileTemplate, expandTemplate } from "../manifest/template-url.js";
import {
  type Selection,
  type SelectionPreferences,
  selectRepresentations,
} from "../selection/representation-choice.js";

/** Which published rendition a pump feeds; re-resolved in every Period. */
export type RenditionRole =
  | { readonly kind: "video" }
  | { readonly kind: "audio"; readonly index: number };

/** Where a rendition stands: the last segment it fetched. */
export type CursorPosition = Pick<
  AvailableSegment,
  "periodId" | "periodStart" | "number" | "time" | "duration" | "timescale"
>;

export type NextSegment =
  | {
      readonly kind: "segment";
      /** Not listed in the MPD yet: computed from the template for an LL-DASH early fetch. */
      readonly predicted: boolean;
      readonly period: Period;
      readonly representation: Representation;
      readonly segment: AvailableSegment;
      readonly initUrl?: string;
    }
  | { readonly kind: "wait" }
  | { readonly kind: "ended" }
  | { readonly kind: "error"; readonly message: string };

/**
 * Selections already made, per parsed Period and preferences object: a pump asks for every
 * segment, and the answer only changes with a new MPD (a new Period object) or new prefs.
 */
const chosen = new WeakMap<Period, WeakMap<SelectionPreferences, Selection>>();

/** The representation a role maps to in `period` (the same choice rules in every Period). */
export function representationFor(
  period: Period,
  role: RenditionRole,
  prefs: SelectionPreferences,
): Representation | undefined {
  let byPrefs = chosen.get(period);
  if (!byPrefs) {
    byPrefs = new WeakMap();
    chosen.set(period, byPrefs);
  }
  let s = byPrefs.get(prefs);
  if (!s) {
    s = selectRepresentations(period, prefs);
    byPrefs.set(prefs, s);
  }
  if (role.kind === "video") return s.video?.representation;
  return (s.audio[role.index] ?? s.audio[0])?.representation;
}

export interface CursorInput {
  readonly mpd: Mpd;
  readonly role: RenditionRole;
  readonly prefs: SelectionPreferences;
  readonly last: CursorPosition | undefined;
  /** First fetch only: start with the segment covering this MPD-timeline time (seconds). */
  readonly startAtSec: number | undefined;
  readonly nowMs: number;
  readonly clockOffsetMs: number;
}

/**
 * The segment a rendition fetches next: the first listed one after `last` (keyed by
 * Period and media time, never by list position, so refreshes that list fewer or
 * overlapping segments do not repeat or skip any), else, for a dynamic MPD, the one
 * after `last` computed from the SegmentTemplate. LL-DASH origins deliver that segment
 * with chunked transfer while it is being encoded (ISO/IEC 23009-1 5.3.9.5.3,
 * availabilityTimeComplete=false), before the MPD lists it.
 */
export function nextSegment(input: CursorInput): NextSegment {
  const { mpd, last } = input;
  for (const period of mpd.periods) {
    if (last && period.start < last.periodStart) continue;
    const rep = representationFor(period, input.role, input.prefs);
    if (!rep) continue;
    const listed = listAvailableSegments(mpd, period, rep, {
      nowMs: input.nowMs,
      clockOffsetMs: input.clockOffsetMs,
      maxSegments: 1000,
    });
    if (!listed.ok)
      return { kind: "error", message: `${listed.error.element}: ${listed.error.message}` };
    const init = listed.value.initializationUrl;
    const pick = listed.value.segments.find((s) => isAfter(s, last, input.startAtSec));
    if (pick) {
      return {
        kind: "segment",
        predicted: false,
        period,
        representation: rep,
        segment: pick,
        ...(init === undefined ? {} : { initUrl: init }),
      };
    }
  }
  if (mpd.type === "static") return { kind: "ended" };
  if (!last) return { kind: "wait" };
  const period = mpd.periods.find((p) => p.id === last.periodId);
  const rep = period && representationFor(period, input.role, input.prefs);
  if (!period || !rep) return { kind: "wait" };
  const predicted = predictAfter(mpd, period, rep, last);
  if (!predicted) return { kind: "wait" };
  const listed = listAvailableSegments(mpd, period, rep, { nowMs: input.nowMs, maxSegments: 1 });
  const init = listed.ok ? listed.value.initializationUrl : undefined;
  return {
    kind: "segment",
    predicted: true,
    period,
    representation: rep,
    segment: predicted,
    ...(init === undefined ? {} : { initUrl: init }),
  };
}

function isAfter(s: AvailableSegment, last: CursorPosition | undefined, startAt?: number): boolean {
  if (!last) {
    // The segment that contains the start time, or the first one after it.
    return startAt === undefined || s.start + s.durationSec > startAt + 0.05;
  }
  if (s.periodId !== last.periodId) return s.periodStart > last.periodStart;
  return s.time > last.time;
}

/**
 * The segment after `last` in its Period from the template alone: number + 1 and
 * time + duration ($Number$ and $Time$ addressing), its duration assumed equal to the
 * last one's until the media says otherwise.
 */
export function predictAfter(
  mpd: Mpd,
  period: Period,
  rep: Representation,
  last: CursorPosition,
): AvailableSegment | undefined {
  if (rep.addressing.kind !== "template") return undefined;
  const tpl = rep.addressing.template;
  const media = compileTemplate(tpl.media);
  if (!media.ok) return undefined;
  const number = last.number + 1;
  if (tpl.endNumber !== undefined && number > tpl.endNumber) return undefined;
  // The last duration is in the media timescale; rescale when the template's differs.
  const duration =
    last.timescale === tpl.timescale
      ? last.duration
      : (last.duration * BigInt(tpl.timescale)) / BigInt(last.timescale);
  const time =
    last.timescale === tpl.timescale
      ? last.time + last.duration
      : ((last.time + last.duration) * BigInt(tpl.timescale)) / BigInt(last.timescale);
  const start = period.start + Number(time - tpl.presentationTimeOffset) / tpl.timescale;
  if (period.end !== undefined && start >= period.end - 1e-3) return undefined;
  const durationSec = Number(duration) / tpl.timescale;
  const ast = mpd.availabilityStartTime;
  return {
    periodId: period.id,
    periodStart: period.start,
    number,
    time,
    duration,
    timescale: tpl.timescale,
    start,
    durationSec,
    url: resolveSegmentUrl(
      rep.baseUrl,
      expandTemplate(media.value, {
        representationId: rep.id,
        bandwidth: rep.bandwidth,
        number,
        time,
      }),
    ),
    availabilityStartMs: ast === undefined ? -Infinity : ast + start * 1000,
    availabilityEndMs: Infinity,
    ...(ast === undefined ? {} : { wallClockStartMs: ast + start * 1000 }),
  };
}

/**
 * Where a new packager starts on the MPD timeline: the start of the segment
 * {@link pickLiveStartIndex} chooses (MPD@suggestedPresentationDelay back from the
 * newest segment, else `fallbackSegments` segments back). Undefined when nothing is
 * listed yet.
 */
export function liveStartSeconds(
  segments: readonly AvailableSegment[],
  delaySec: number | undefined,
  fallbackSegments: number,
): number | undefined {
  const index = pickLiveStartIndex(segments, delaySec, fallbackSegments);
  return index < 0 ? undefined : segments[index]?.start;
}
