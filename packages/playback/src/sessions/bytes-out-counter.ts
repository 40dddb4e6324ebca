import type { PlaybackStats } from "../delivery/playback-stats.js";
import type { RuntimeSession } from "./runtime-session.js";

/**
 * Counts body bytes written to a player: in the session's packager counters and in the
 * runtime's `bytes_out` of `/v1/status` (`stats` is read lazily, it may come later).
 * @example
 * const count = bytesOutCounter(o.stats);
 * count(session, answer.bytes);
 */
export function bytesOutCounter(
  stats: (() => PlaybackStats | undefined) | undefined,
): (session: RuntimeSession | undefined, bytes: number) => void {
  return (session, bytes) => {
    const p = session?.packager;
    if (p) p.counters.bytes_out += bytes;
    const s = stats?.();
    if (s) s.bytesOut += bytes;
  };
}
