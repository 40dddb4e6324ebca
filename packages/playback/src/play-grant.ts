import type { Channel } from "@svc/core/catalog";
import { type AppEnv, requestHeader } from "@svc/core/http";
import type { Context } from "hono";
import type { PlayRequest } from "./delivery/play-request.js";
import type { KeyConnectionLimit } from "./key-connections.js";
import type { PlaybackAuthorizer, PlaybackGrant } from "./play-auth.js";

/** What a credential allows, and what every URL written for its request carries. */
export interface PlayGrant {
  /** Channels the credential may play; null: all. Out of scope → 403 `forbidden`. */
  readonly channels: ReadonlySet<string> | null;
  /** Mount path as generated URLs spell it: `/v1/play` or `/p/{key}/play`. */
  readonly pathPrefix: string;
  /** Percent-encoded query without `?` carried into generated URLs (`token=…`), or "". */
  readonly urlQuery: string;
  /**
   * True when no credential was needed to get here (`/v1/play` with `play_require_auth:
   * false`): immutable media may then be kept by shared caches (`public`). Absent or false
   * (a token, a playback key): `private`, so a cache in front never hands bytes that need a
   * credential to a request without one (docs/playback.md "Cache-Control").
   */
  readonly open?: boolean;
  /**
   * A playback key with `max_connections` (extensions "Connection limits"): every stream
   * under it (a `stream.ts` connection, an HLS viewer's lease) holds one of its seats.
   */
  readonly connections?: KeyConnectionLimit;
}

/**
 * Checks the credential of a play request; throws `GatewayError` (401) when it
 * is missing or invalid. `channelId` is the channel asked for (for access logs).
 */
export type ResolveGrant = (c: Context<AppEnv>, channelId: string) => Promise<PlayGrant>;

/**
 * The `/v1/play` credential (spec "Playback" 4): `?token=` over `Authorization:
 * Bearer`, a session or preview JWT; the token rides along in every generated
 * URL as `token=`, since players do not repeat headers on the URLs they follow.
 */
export function jwtPlayGrant(authorizer: PlaybackAuthorizer): ResolveGrant {
  return async (c) =>
    jwtPlayGrantOf(
      await authorizer.authorize(c.req.query("token"), requestHeader(c, "authorization")),
    );
}

/** The `/v1/play` form of a checked credential. */
export function jwtPlayGrantOf(g: PlaybackGrant): PlayGrant {
  return {
    channels: g.channels,
    pathPrefix: "/v1/play",
    urlQuery: g.tokenQuery,
    open: g.open,
  };
}

/**
 * The request every generated URL is written for: `base` (the public origin), the mount
 * and channel as the prefix, the credential and viewer lease as the query.
 */
export function playRequestOf(
  grant: PlayGrant,
  channel: Channel,
  base: string,
  viewer: string | undefined,
): PlayRequest {
  const lease = viewer === undefined ? "" : `viewer=${viewer}`;
  const query =
    grant.urlQuery === "" ? lease : lease === "" ? grant.urlQuery : `${grant.urlQuery}&${lease}`;
  return {
    channel,
    prefix: `${base}${grant.pathPrefix}/${encodeURIComponent(channel.id)}/`,
    query: query === "" ? "" : `&${query}`,
    // A viewer-limited channel's URLs are per viewer (`viewer=`), and every media request
    // must reach the gateway to renew its lease: never offered to shared caches.
    sharedCache: grant.open === true && channel.max_viewers === null,
  };
}
