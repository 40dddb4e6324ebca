import type { Egress } from "@svc/core/egress";
import { loadMpd } from "../../dash/fetcher/mpd-loader.js";
import { currentPeriod } from "../../dash/manifest/current-period.js";
import type { Mpd } from "../../dash/manifest/mpd-model.js";
import { listAvailableSegments } from "../../dash/manifest/segment-availability.js";
import type { ResolvedSource } from "./channel-sources.js";

/** A probe's MPD fetch gives up after this long. */
const PROBE_DEADLINE_MS = 5_000;
/** A live MPD's newest segment may stay the same this many segment durations. */
const STALL_SEGMENTS = 3;
/**
 * Without UTCTiming, how far the origin's clock may be from this machine's before a source
 * that was frozen before it was opened is told from a live one on a skewed clock.
 */
export const UNSYNCED_CLOCK_SLACK_MS = 60_000;

/**
 * How long a live MPD's newest segment may stay the same: three segment durations, or three
 * `minimumUpdatePeriod`s when longer (extensions "Fallback sources and the slate": a DASH
 * MPD that stops updating). One rule for the relay's `stalled` and the failback probe.
 */
export function stallLimitMs(mpd: Mpd, segmentSec: number): number {
  return STALL_SEGMENTS * Math.max(segmentSec, mpd.minimumUpdatePeriod ?? 0) * 1000;
}

/**
 * A source frozen before it was opened: how long ago (ms) the newest segment its MPD lists
 * became available, at `nowMs` on the origin's clock, when that is past {@link stallLimitMs}
 * (undefined while the source is live enough, or lists nothing). The origin's clock is its
 * UTCTiming's; an MPD without one is read on this machine's clock (DASH-IF IOP: a client
 * without a timing source uses its own), and {@link UNSYNCED_CLOCK_SLACK_MS} more is allowed
 * before a source is judged frozen, so a live source on a skewed clock is not.
 */
export function frozenBeforeOpenMs(mpd: Mpd, nowMs: number): number | undefined {
  const seg = newestSegmentOf(mpd, nowMs);
  if (seg === undefined) return undefined;
  const ageMs = nowMs - seg.availableAtMs;
  const slackMs = mpd.utcTimings.length > 0 ? 0 : UNSYNCED_CLOCK_SLACK_MS;
  return ageMs > stallLimitMs(mpd, seg.durationSec) + slackMs ? ageMs : undefined;
}

/**
 * Failback probes of DASH sources (extensions "Fallback sources and the slate": checked
 * without pulling the source's media, by MPD polls only). A probe fetches the source's MPD,
 * never a segment nor an init section, and answers healthy while it is a dynamic MPD
 * whose newest segment (of its first Representation) has advanced within the last three
 * segment durations, or three `minimumUpdatePeriod`s when longer, as seen across this
 * prober's polls (a source's first poll needs only a listed segment). The same rule as the
 * relay's `stalled` (`sessions/ts/dash-ts-relay.ts`).
 */
export function createDashFailbackProbe(o: {
  readonly egress: Egress;
  readonly channelId: string;
  readonly maxMpdBytes: number;
}): (source: ResolvedSource, signal: AbortSignal) => Promise<boolean> {
  /** Per source index: the end of the newest segment seen (MPD seconds) and when. */
  const seen = new Map<number, { end: number; at: number }>();
  return async (source, signal) => {
    const r = await loadMpd(
      {
        egress: o.egress,
        channelId: o.channelId,
        headers: source.headers,
        credentialOrigin: source.credentialOrigin,
        signal,
      },
      source.url,
      o.maxMpdBytes,
      PROBE_DEADLINE_MS,
    );
    if (!r.ok || r.mpd.type !== "dynamic") return false;
    const now = Date.now();
    const newest = newestSegmentOf(r.mpd, now);
    if (newest === undefined) return false;
    const before = seen.get(source.index);
    if (before === undefined || newest.end > before.end) {
      seen.set(source.index, { end: newest.end, at: now });
      return true;
    }
    return now - before.at <= stallLimitMs(r.mpd, newest.durationSec);
  };
}

/**
 * The newest segment a live MPD lists at `nowMs` (the origin's clock; its first
 * Representation, of the live Period): its end on the MPD timeline, its duration and the
 * epoch ms it became available.
 */
export function newestSegmentOf(
  mpd: Mpd,
  nowMs: number,
):
  | { readonly end: number; readonly durationSec: number; readonly availableAtMs: number }
  | undefined {
  const period = currentPeriod(mpd, nowMs);
  const rep = period?.adaptationSets[0]?.representations[0];
  if (period === undefined || rep === undefined) return undefined;
  const listed = listAvailableSegments(mpd, period, rep, { nowMs });
  const last = listed.ok ? listed.value.segments.at(-1) : undefined;
  return last === undefined
    ? undefined
    : {
        end: last.start + last.durationSec,
        durationSec: last.durationSec,
        availableAtMs: last.availabilityStartMs,
      };
}
