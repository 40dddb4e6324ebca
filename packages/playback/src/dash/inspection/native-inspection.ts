import type { Mpd, MpdError, Period, Representation } from "../manifest/mpd-model.js";
import { parseMpd } from "../manifest/mpd-parser.js";
import { listAvailableSegments } from "../manifest/segment-availability.js";
import {
  type SelectionPreferences,
  selectRepresentations,
} from "../selection/representation-choice.js";
import { passthroughProblem } from "./codec-support.js";
import type { NativeInspection } from "./inspection-model.js";
import { normalizeKid, type ProtectedTrack, protectionProblems } from "./protection-check.js";
import { absurdAddressing, timelineOverlap } from "./timeline-check.js";
import { urlForReport } from "./url-for-report.js";

/** What the inspection needs besides the MPD. */
export interface InspectionOptions extends SelectionPreferences {
  /**
   * KIDs a key is configured for (channel `keys` and `media.keys`), any case, dashes
   * allowed; `"any"` leaves keys out of the verdict (the session checks them itself, and a
   * missing key is no reason to change engine).
   */
  readonly keyKids?: Iterable<string> | "any";
  /** The clock of the dry run that lists the first segments (default: now). */
  readonly nowMs?: number;
}

/** Why the native engine cannot address a representation's segments (5.3.9). */
function addressingProblem(rep: Representation): string | undefined {
  const a = rep.addressing;
  if (a.kind === "template") {
    if (a.template.initialization === undefined)
      return `Representation ${rep.id} has a SegmentTemplate without @initialization (self-initialising segments)`;
    // 5.3.9.4.4: $SubNumber$ addresses Segment Sequences (parts of one segment), which the
    // engine does not enumerate; expanding it empty would build wrong URLs.
    if (/\$SubNumber(%0\d+d)?\$/.test(a.template.media))
      return `Representation ${rep.id} uses $SubNumber$ (segment sequences), which the native engine does not address`;
    return timelineOverlap(rep);
  }
  switch (a.scheme) {
    case "SegmentList":
      return `Representation ${rep.id} uses SegmentList addressing`;
    case "SegmentBase":
      // The native engine has no sidx reader, so even an indexed SegmentBase falls back.
      return `Representation ${rep.id} uses SegmentBase (single indexed file); the native engine has no sidx support`;
    case "none":
      return `Representation ${rep.id} declares no segment information`;
  }
}

/**
 * A dry run of what the session will do first: list the newest segments and build their
 * URLs. A Representation the rules above accept but whose listing fails (or leaves an
 * identifier unexpanded) would be judged native and then fail in the session.
 */
function listingProblem(
  mpd: Mpd,
  period: Period,
  rep: Representation,
  nowMs: number,
): string | undefined {
  if (absurdAddressing(rep) !== undefined) return undefined; // the session reports it
  const listed = listAvailableSegments(mpd, period, rep, { nowMs, maxSegments: 3 });
  if (!listed.ok)
    return `Representation ${rep.id}: its segments cannot be listed (${listed.error.message})`;
  const unexpanded = listed.value.segments.find((s) => s.url.includes("$"));
  if (unexpanded !== undefined)
    return `Representation ${rep.id}: segment URL ${urlForReport(unexpanded.url)} keeps a template identifier`;
  return undefined;
}

/**
 * Decide whether the native engine can play an MPD. Inspects what would be published:
 * the representations `selectRepresentations` chooses in every Period with the channel's
 * preferences. Native handles SegmentTemplate ($Number$, $Time$, SegmentTimeline) over
 * single-track fMP4/CMAF, clear or ClearKey-encrypted with known KIDs and configured keys.
 * Every problem found is listed in `reason`.
 * @example
 * const r = parseMpd(body, { url: finalUrl });
 * const inspection = r.ok ? inspectNativeSupport(r.value, { keyKids: Object.keys(keys) }) : inspectionOfParseError(r.error);
 */
export function inspectNativeSupport(mpd: Mpd, opts: InspectionOptions = {}): NativeInspection {
  const problems: string[] = [];
  const tracks: ProtectedTrack[] = [];
  if (mpd.periods.length === 0) problems.push("the MPD has no Period");
  for (const period of mpd.periods) {
    const selection = selectRepresentations(period, opts);
    const chosen: ProtectedTrack[] = [];
    if (selection.video) chosen.push({ slot: "video", rep: selection.video.representation });
    for (const [i, a] of selection.audio.entries())
      chosen.push({ slot: `audio ${a.language ?? `#${i + 1}`}`, rep: a.representation });
    if (chosen.length === 0)
      problems.push(`Period ${period.id} has no video or audio Representation to publish`);
    for (const track of chosen) {
      const p =
        addressingProblem(track.rep) ??
        passthroughProblem(track.rep) ??
        listingProblem(mpd, period, track.rep, opts.nowMs ?? Date.now());
      if (p !== undefined) problems.push(p);
      // A published rendition needs BANDWIDTH= (RFC 8216bis 4.4.6.2); others may omit it.
      if (track.rep.bandwidth === 0)
        problems.push(`Representation ${track.rep.id} has no @bandwidth`);
    }
    tracks.push(...chosen);
  }
  const keyKids =
    opts.keyKids === "any" ? "any" : new Set([...(opts.keyKids ?? [])].map(normalizeKid));
  const protection = protectionProblems(tracks, keyKids);
  problems.push(...protection.problems);
  const unique = [...new Set(problems)];
  return {
    native_supported: unique.length === 0,
    suggested_engine: unique.length === 0 ? "native" : "ffmpeg",
    reason: unique.length === 0 ? null : unique.join("; "),
    encrypted: protection.encrypted,
    kids: protection.kids,
  };
}

/** The inspection of an MPD that did not parse: only the compatibility engine may cope. */
export function inspectionOfParseError(error: MpdError): NativeInspection {
  return {
    native_supported: false,
    suggested_engine: "ffmpeg",
    reason: `the MPD did not parse (${error.element}: ${error.message})`,
    encrypted: false,
    kids: [],
  };
}

/**
 * Parse an MPD body and inspect it in one step (what a probe does with a fetched MPD).
 * `finalUrl` is the URL after redirects.
 */
export function inspectMpdText(
  body: string | Uint8Array,
  finalUrl: string,
  opts: InspectionOptions = {},
): NativeInspection {
  const parsed = parseMpd(body, { url: finalUrl });
  return parsed.ok
    ? inspectNativeSupport(parsed.value, opts)
    : inspectionOfParseError(parsed.error);
}
