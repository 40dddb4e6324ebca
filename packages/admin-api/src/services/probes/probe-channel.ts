import { type Channel, type ChannelCatalog, resolveChannelSource } from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress, RouteRequest } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import { dashProbeKeysProblem, probeSource, type SourceProbe } from "@svc/playback/probes";

/** What a probe needs from the admin context. */
export interface ProbeDeps {
  readonly config: GatewayConfig;
  readonly channels: ChannelCatalog;
  readonly egress: Egress;
}

/**
 * Probes a channel's source, stored or draft (spec "Sessions, probes, previews"). Throws 400
 * `invalid_request` for a DASH channel while `media.keys` is empty (spec: "DASH without global
 * media keys configured: 400"), and 502 `upstream_error` when the channel names an upstream the
 * config no longer has (as playback answers). Upstream failures and guard refusals are in the
 * returned probe; the caller decides what a refusal means for its route.
 * @example const probe = await probeChannel(ctx, existingChannel(ctx.channels, id));
 */
export async function probeChannel(
  deps: ProbeDeps,
  channel: Channel,
  route?: Omit<RouteRequest, "channelId">,
): Promise<SourceProbe> {
  if (channel.ingress === "dash") {
    const problem = dashProbeKeysProblem(deps.config.media.keys);
    if (problem !== undefined) throw new GatewayError("invalid_request", problem);
  }
  const source = resolveChannelSource(channel, deps.channels);
  if (source === undefined)
    throw new GatewayError("upstream_error", "channel source is not configured");
  return probeSource(channel, source, {
    egress: deps.egress,
    maxBodyBytes: deps.config.security.max_playlist_bytes,
    globalKeys: deps.config.media.keys,
    ...(route ? { route } : {}),
  });
}
