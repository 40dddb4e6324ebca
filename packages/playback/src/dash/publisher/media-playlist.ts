import {
  formatProgramDateTime,
  formatSeconds,
  quoted,
  requiredVersion,
  targetDurationFor,
} from "./hls-format.js";

/** A Partial Segment (RFC 8216bis 4.4.4.9). */
export interface PublishedPart {
  readonly durationSec: number;
  readonly uri: string;
  /** INDEPENDENT=YES: the part starts with a sync sample. */
  readonly independent: boolean;
}

/** A complete Media Segment in the published window. */
export interface PublishedSegment {
  readonly msn: number;
  readonly durationSec: number;
  readonly uri: string;
  /** Wall-clock start (epoch ms) for EXT-X-PROGRAM-DATE-TIME. */
  readonly programDateTimeMs?: number;
  readonly discontinuity?: boolean;
  /** Initialization section for this segment when it differs from the playlist's `mapUri`. */
  readonly mapUri?: string;
  /** Its parts, when it was produced in parts; only the newest are listed (see renderMediaPlaylist). */
  readonly parts?: readonly PublishedPart[];
}

/** EXT-X-RENDITION-REPORT for a sibling rendition (RFC 8216bis 4.4.5.4). */
export interface RenditionReport {
  /** Relative to this media playlist. */
  readonly uri: string;
  readonly lastMsn: number;
  readonly lastPart?: number;
}

export interface LowLatencySettings {
  /** PART-TARGET in seconds; raised to the longest listed part if one exceeds it. */
  readonly partTargetSec: number;
  /** Parts of the segment still being written; its MSN is the last segment's MSN + 1. */
  readonly pendingParts?: readonly PublishedPart[];
  /** The segment being written starts a discontinuity (e.g. a new Period). */
  readonly pendingDiscontinuity?: boolean;
  readonly pendingMapUri?: string;
  /** URI of the next part, announced with EXT-X-PRELOAD-HINT:TYPE=PART. */
  readonly preloadHintUri?: string;
  readonly renditionReports?: readonly RenditionReport[];
  /** Default and minimum: 3 x PART-TARGET. */
  readonly partHoldBackSec?: number;
  /** Default true. */
  readonly canBlockReload?: boolean;
}

export interface MediaPlaylistInput {
  /**
   * Configured target duration (RFC 8216bis 6.2.1 forbids changing it between reloads, so
   * derive it once, e.g. from MPD@maxSegmentDuration). Raised if a segment would violate it.
   */
  readonly targetDurationSec?: number;
  readonly discontinuitySequence: number;
  /** Default EXT-X-MAP URI. */
  readonly mapUri: string;
  /** Oldest first, consecutive MSNs. */
  readonly segments: readonly PublishedSegment[];
  readonly endList?: boolean;
  /** Default and minimum: 3 x target duration. */
  readonly holdBackSec?: number;
  /** Skip Boundary for delta updates; default 6 x target duration; false disables them. */
  readonly canSkipUntilSec?: number | false;
  readonly lowLatency?: LowLatencySettings;
}

/** How the playlist was asked for (the parsed `_HLS_skip` directive). */
export interface MediaPlaylistRequest {
  readonly skip?: "YES" | "v2";
}

/** Values the renderer settled on; useful for the blocking-reload decision and for tests. */
export interface MediaPlaylistFacts {
  readonly targetDuration: number;
  readonly partTarget?: number;
  readonly version: number;
  readonly skippedSegments: number;
  readonly canSkipUntil?: number;
}

/**
 * The text of each part's EXT-X-PART line and of each segment's EXTINF and URI, formatted
 * once per object: published parts and segments are immutable, and a caller that passes the
 * same objects to every render of a live window (`RenditionWindow` does) has only the new
 * ones formatted, not the whole window again for each new part.
 */
const partLines = new WeakMap<PublishedPart, string>();
const segmentLines = new WeakMap<PublishedSegment, string>();

function partLine(p: PublishedPart): string {
  let line = partLines.get(p);
  if (line === undefined) {
    line = `#EXT-X-PART:DURATION=${formatSeconds(p.durationSec)},URI=${quoted(p.uri)}${p.independent ? ",INDEPENDENT=YES" : ""}`;
    partLines.set(p, line);
  }
  return line;
}

function segmentLine(s: PublishedSegment): string {
  let line = segmentLines.get(s);
  if (line === undefined) {
    line = `#EXTINF:${formatSeconds(s.durationSec)},\n${s.uri}`;
    segmentLines.set(s, line);
  }
  return line;
}

/** Render a media playlist; see {@link renderMediaPlaylistWithFacts} for the rules applied. */
export function renderMediaPlaylist(
  input: MediaPlaylistInput,
  request: MediaPlaylistRequest = {},
): string {
  return renderMediaPlaylistWithFacts(input, request).text;
}

/**
 * Render a (LL-)HLS media playlist following RFC 8216bis:
 * - 4.4.3.1 target duration: at least every rounded EXTINF;
 * - 4.4.3.8 HOLD-BACK >= 3 x target duration, PART-HOLD-BACK >= 3 x PART-TARGET (the
 *   MUST is 2x, the SHOULD and hls.js want 3x), CAN-SKIP-UNTIL >= 6 x target duration;
 * - 6.2.2 EXT-X-PART tags are listed only while within 3 target durations of the end;
 * - 6.2.5.1 a `_HLS_skip` request replaces the segments whose end lies at least the Skip
 *   Boundary before the end of the last segment with EXT-X-SKIP (v2 is served as YES
 *   since CAN-SKIP-DATERANGES is never advertised: there are no date ranges);
 * - Section 8 version: 6 for EXT-X-MAP, 9 while delta updates are offered, kept the same
 *   for full and delta responses so the version never changes between reloads.
 */
export function renderMediaPlaylistWithFacts(
  input: MediaPlaylistInput,
  request: MediaPlaylistRequest = {},
): { text: string; facts: MediaPlaylistFacts } {
  const ll = input.endList ? undefined : input.lowLatency;
  const pending = ll?.pendingParts ?? [];
  const td = Math.max(
    input.targetDurationSec === undefined ? 1 : Math.ceil(input.targetDurationSec - 1e-9),
    targetDurationFor(input.segments.map((s) => s.durationSec)),
  );
  const allParts = [...input.segments.flatMap((s) => s.parts ?? []), ...pending];
  const partTarget = ll
    ? Math.max(ll.partTargetSec, ...allParts.map((p) => p.durationSec))
    : undefined;
  const live = !input.endList;
  const canSkipUntil =
    live && input.canSkipUntilSec !== false
      ? Math.max(input.canSkipUntilSec ?? 0, 6 * td)
      : undefined;
  const version = requiredVersion({ map: true, skip: canSkipUntil !== undefined });

  // Start times relative to the first segment, to place parts and the skip boundary.
  const starts: number[] = [];
  let t = 0;
  for (const s of input.segments) {
    starts.push(t);
    t += s.durationSec;
  }
  const lastSegmentEnd = t;
  const playlistEnd = t + pending.reduce((sum, p) => sum + p.durationSec, 0);

  let skipped = 0;
  if (request.skip && canSkipUntil !== undefined) {
    while (skipped < input.segments.length - 1) {
      const end = (starts[skipped] ?? 0) + (input.segments[skipped]?.durationSec ?? 0);
      if (lastSegmentEnd - end + 1e-6 < canSkipUntil) break;
      skipped += 1;
    }
  }

  const lines = ["#EXTM3U", `#EXT-X-VERSION:${version}`, `#EXT-X-TARGETDURATION:${td}`];
  if (live) {
    const control: string[] = [];
    if (ll && (ll.canBlockReload ?? true)) control.push("CAN-BLOCK-RELOAD=YES");
    if (canSkipUntil !== undefined) control.push(`CAN-SKIP-UNTIL=${formatSeconds(canSkipUntil)}`);
    control.push(`HOLD-BACK=${formatSeconds(Math.max(input.holdBackSec ?? 0, 3 * td))}`);
    if (ll && partTarget !== undefined)
      control.push(
        `PART-HOLD-BACK=${formatSeconds(Math.max(ll.partHoldBackSec ?? 0, 3 * partTarget))}`,
      );
    lines.push(`#EXT-X-SERVER-CONTROL:${control.join(",")}`);
  }
  if (partTarget !== undefined)
    lines.push(`#EXT-X-PART-INF:PART-TARGET=${formatSeconds(partTarget)}`);
  const firstMsn = input.segments[0]?.msn ?? 0;
  lines.push(`#EXT-X-MEDIA-SEQUENCE:${firstMsn}`);
  // 4.4.3.3 and hls.js: must precede the first segment and the EXT-X-SKIP tag.
  lines.push(`#EXT-X-DISCONTINUITY-SEQUENCE:${input.discontinuitySequence}`);
  if (skipped > 0) lines.push(`#EXT-X-SKIP:SKIPPED-SEGMENTS=${skipped}`);

  const partWindow = 3 * td;
  let currentMap: string | undefined;
  let first = true;
  const emitParts = (parts: readonly PublishedPart[], segmentStart: number): void => {
    let ps = segmentStart;
    for (const p of parts) {
      if (playlistEnd - ps <= partWindow + 1e-6) lines.push(partLine(p));
      ps += p.durationSec;
    }
  };
  const emitSegmentTags = (
    discontinuity: boolean,
    mapUri: string,
    pdt: number | undefined,
  ): void => {
    // 4.4.4.9: these tags apply to the first part too, so they precede any EXT-X-PART.
    if (discontinuity) lines.push("#EXT-X-DISCONTINUITY");
    if (mapUri !== currentMap) {
      lines.push(`#EXT-X-MAP:URI=${quoted(mapUri)}`);
      currentMap = mapUri;
    }
    if (pdt !== undefined && (first || discontinuity))
      lines.push(`#EXT-X-PROGRAM-DATE-TIME:${formatProgramDateTime(pdt)}`);
    first = false;
  };
  for (let i = skipped; i < input.segments.length; i++) {
    const s = input.segments[i];
    if (!s) continue;
    emitSegmentTags(s.discontinuity ?? false, s.mapUri ?? input.mapUri, s.programDateTimeMs);
    if (ll && s.parts) emitParts(s.parts, starts[i] ?? 0);
    lines.push(segmentLine(s));
  }
  if (ll && pending.length > 0) {
    emitSegmentTags(ll.pendingDiscontinuity ?? false, ll.pendingMapUri ?? input.mapUri, undefined);
    emitParts(pending, lastSegmentEnd);
  }
  if (ll?.preloadHintUri)
    lines.push(`#EXT-X-PRELOAD-HINT:TYPE=PART,URI=${quoted(ll.preloadHintUri)}`);
  for (const r of ll?.renditionReports ?? []) {
    const attrs = [`URI=${quoted(r.uri)}`, `LAST-MSN=${r.lastMsn}`];
    if (r.lastPart !== undefined) attrs.push(`LAST-PART=${r.lastPart}`);
    lines.push(`#EXT-X-RENDITION-REPORT:${attrs.join(",")}`);
  }
  if (input.endList) lines.push("#EXT-X-ENDLIST");
  const facts: MediaPlaylistFacts = {
    targetDuration: td,
    version,
    skippedSegments: skipped,
    ...(partTarget === undefined ? {} : { partTarget }),
    ...(canSkipUntil === undefined ? {} : { canSkipUntil }),
  };
  return { text: `${lines.join("\n")}\n`, facts };
}
