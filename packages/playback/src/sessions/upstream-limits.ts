import type { Channel, ChannelCatalog } from "@svc/core/catalog";
import type { RuntimeSession } from "./runtime-session.js";

/**
 * A session whose channel had no play request for this long, and has no `stream.ts`
 * viewer attached, has no viewer left: an HLS player reloads its playlist every target
 * duration (2 to 6 s), so five reloads missed means it is gone.
 */
export const NO_VIEWER_AFTER_MS = 10_000;

/** `/v1/status` `upstreams[]` (extensions "Connection limits", an additive field). */
export interface UpstreamConnections {
  readonly id: string;
  /** Running sessions of channels pulled from this upstream (each one connection). */
  readonly connections: number;
  readonly max_connections: number | null;
}

/** The limited upstream a channel's session pulls from; undefined when none applies. */
export function limitedUpstreamOf(
  channel: Pick<Channel, "source_url" | "upstream">,
  catalog: ChannelCatalog,
): { readonly id: string; readonly max: number } | undefined {
  // A channel with its own source_url does not pull through the upstream it may name.
  if (channel.source_url !== "" || channel.upstream === "") return undefined;
  const max = catalog.upstream(channel.upstream)?.max_connections;
  return max === undefined ? undefined : { id: channel.upstream, max };
}

/** The upstream a session's connection counts against, limited or not. */
export function upstreamIdOf(
  channel: Pick<Channel, "source_url" | "upstream">,
): string | undefined {
  return channel.source_url !== "" || channel.upstream === "" ? undefined : channel.upstream;
}

/** Has the session no viewer left (see {@link NO_VIEWER_AFTER_MS})? */
export function hasNoViewer(s: RuntimeSession, now: number): boolean {
  return (s.packager?.fanout?.size ?? 0) === 0 && now - s.lastTouch >= NO_VIEWER_AFTER_MS;
}

export type SeatDecision =
  | { readonly kind: "free" }
  /** Full, but this session has no viewer left: stop it, then start the new one. */
  | { readonly kind: "evict"; readonly session: RuntimeSession }
  | { readonly kind: "full"; readonly message: string };

/**
 * Extensions "Connection limits": may one more channel pull from its upstream? Every
 * running session of a channel of that upstream costs one connection, however many watch
 * it. When the upstream is full, an on-demand session with no viewer left (the one idle
 * longest) is stopped first; sessions an operator keeps running (`autostart`, warmup of
 * an autostart channel) are never stopped for another channel.
 */
export function decideSeat(
  channel: Channel,
  sessions: Iterable<RuntimeSession>,
  catalog: ChannelCatalog,
  now: number,
): SeatDecision {
  const limited = limitedUpstreamOf(channel, catalog);
  if (limited === undefined) return { kind: "free" };
  const mine = [...sessions].filter(
    (s) => s.channel.id !== channel.id && upstreamIdOf(s.channel) === limited.id,
  );
  if (mine.length < limited.max) return { kind: "free" };
  const idle = mine
    .filter((s) => s.mode === "on_demand" && hasNoViewer(s, now))
    .sort((a, b) => a.lastTouch - b.lastTouch)[0];
  if (idle !== undefined) return { kind: "evict", session: idle };
  return {
    kind: "full",
    message: `upstream "${limited.id}" is at its limit of ${limited.max} connection${limited.max === 1 ? "" : "s"} (max_connections): every channel it serves is being watched`,
  };
}

/** Connections per configured upstream, for `/v1/status`. */
export function upstreamConnections(
  upstreams: readonly { readonly id: string; readonly max_connections?: number | undefined }[],
  sessions: Iterable<RuntimeSession>,
): UpstreamConnections[] {
  const counts = new Map<string, number>();
  for (const s of sessions) {
    const id = upstreamIdOf(s.channel);
    if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return upstreams.map((u) => ({
    id: u.id,
    connections: counts.get(u.id) ?? 0,
    max_connections: u.max_connections ?? null,
  }));
}
