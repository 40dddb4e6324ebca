import type { Channel } from "@svc/core/catalog";
import { DIRECT, type Egress } from "@svc/core/egress";
import type { RewritePolicy } from "./playlist-rewriter.js";

/** `egress.playlist_policy` of the egress document (spec "Egress configuration"). */
export type PlaylistPolicy = RewritePolicy | "auto";

/**
 * `auto` rewrites media URIs when a player could not fetch them the way the gateway does:
 * the upstream needs the channel's own headers or user agent, or the channel's route goes
 * through a proxy profile (a player fetching the origin itself would leave the route the
 * operator chose; the connection test's `rewrite` reports the same rule). Otherwise the
 * player fetches media straight from the origin.
 */
export function effectivePolicy(
  policy: PlaylistPolicy,
  channel: Channel,
  viaProxy: boolean,
): RewritePolicy {
  if (policy !== "auto") return policy;
  return viaProxy || Object.keys(channel.headers).length > 0 || channel.user_agent !== ""
    ? "rewrite"
    : "passthrough";
}

/**
 * The rewrite policy of one playlist fetch, read from `current()` on every call so a change
 * of the stored egress document (admin API, console) reaches playback without a restart.
 */
export function createPolicyChooser(
  current: () => PlaylistPolicy,
  egress: Egress,
): (channel: Channel, url: string) => RewritePolicy {
  return (channel, url) => {
    const policy = current();
    if (policy !== "auto") return policy;
    let viaProxy = true;
    try {
      const choice = egress.routes.choose(new URL(url), { channelId: channel.id });
      // A route that fails closed (disabled profile) is not direct either: keep media on `u/`.
      viaProxy = !choice.ok || choice.proxyId !== DIRECT;
    } catch {
      // An unparsable URL fails in the fetch itself; rewriting is the safe answer here.
    }
    return effectivePolicy(policy, channel, viaProxy);
  };
}
