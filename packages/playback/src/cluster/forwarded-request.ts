import { GatewayError } from "@svc/core/errors";
import { type AppEnv, requestHeader } from "@svc/core/http";
import type { Context } from "hono";
import {
  type ForwardedPlay,
  type ForwardTarget,
  INSTANCE_TOKEN_HEADER,
  type InstanceTokens,
} from "./instance-token.js";

/**
 * Checks a play request for an instance token (cluster mode): undefined when it carries
 * none (an ordinary play request), the forwarded play when the token is good, 403 when it
 * is not. `resource` is `index.m3u8` or `live/{file}`.
 */
export type AcceptForwarded = (
  c: Context<AppEnv>,
  channelId: string,
  resource: string,
) => ForwardedPlay | undefined;

/**
 * The query a forwarded request keeps: the generation `g` and the LL-HLS directives the
 * owner's packager reads. The credential and the viewer lease stay behind (the
 * forwarding instance checked them; they travel inside the token as the query of
 * generated URLs).
 */
export function forwardedSearch(url: URL): string {
  const kept: string[] = [];
  for (const [k, v] of url.searchParams) {
    if (k === "g" || k.startsWith("_HLS_"))
      kept.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  }
  return kept.length === 0 ? "" : `?${kept.join("&")}`;
}

/** The path a forwarded request asks the owner for, below its base URL. */
export function forwardedPath(target: ForwardTarget): string {
  const resource = target.resource.startsWith("live/")
    ? `live/${encodeURIComponent(target.resource.slice(5))}`
    : target.resource;
  return `/v1/play/${encodeURIComponent(target.channelId)}/${resource}${target.search}`;
}

/** The owner's side: verifies the token against the request it arrived with. */
export function acceptForwarded(tokens: InstanceTokens): AcceptForwarded {
  return (c, channelId, resource) => {
    const token = requestHeader(c, INSTANCE_TOKEN_HEADER);
    if (token === undefined) return undefined;
    const search = forwardedSearch(new URL(c.req.url));
    const play = tokens.verify(token, { channelId, resource, search });
    if (play === undefined) throw new GatewayError("forbidden", "invalid instance token");
    return play;
  };
}
