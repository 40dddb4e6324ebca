import type { ChannelCatalog } from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import { type AppEnv, piecewiseBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import { channelPlaylistPieces, playlistChannels } from "./m3u/channel-playlist.js";
import type { PlaybackAuthorizer } from "./play-auth.js";
import { publicBase } from "./public-url.js";

export {
  type ChannelPlaylistOptions,
  channelPlaylistPieces,
  playlistChannels,
  renderChannelPlaylist,
} from "./m3u/channel-playlist.js";
export {
  assertChannelGranted,
  createPlaybackAuthorizer,
  type PlaybackAuthorizer,
  type PlaybackGrant,
} from "./play-auth.js";
export { publicBase } from "./public-url.js";

/** What playback needs from the app that mounts it; nothing here knows about a database. */
export interface PlaybackDeps {
  readonly config: GatewayConfig;
  readonly catalog: ChannelCatalog;
  readonly authorizer: PlaybackAuthorizer;
  /** Current `public_base_url` (runtime-editable in the full build). */
  readonly publicBaseUrl: () => string;
  /** `x-tvg-url` for the playlist header when guide sources are active (full build). */
  readonly guideUrl?: (base: string) => string | undefined;
}

/** M3U content type used for every generated channel list. */
export const M3U_CONTENT_TYPE = "application/vnd.apple.mpegurl";

/** Spec "Playlist": session or preview JWT, as `play_require_auth` says. */
export const playlistRoutes = defineRoutes("/v1", {
  playlist: {
    method: "GET",
    path: "/playlist.m3u",
    access: { credential: "playlist", scope: null },
    summary: "M3U playlist",
    tag: "playback",
    success: [200, "M3U", M3U_CONTENT_TYPE],
  },
});

/**
 * The playlist route shared by both builds (`GET /v1/playlist.m3u`); the
 * `/v1/play/{id}/…` routes are `createPlayRoutes`'.
 *
 * @example
 * app.route(playlistRoutes.base, createPlayback({ config, catalog, authorizer, publicBaseUrl: () => "" }));
 */
export function createPlayback(deps: PlaybackDeps): Hono<AppEnv> {
  return routesOf(playlistRoutes, {
    // Spec "Playlist": filtered to the credential's channels, disabled channels left out,
    // the caller's token carried into every generated /v1/play/ URL.
    playlist: async (c) => {
      const grant = await deps.authorizer.authorize(
        c.req.query("token"),
        c.req.header("authorization"),
      );
      const base = publicBase(deps.publicBaseUrl(), c.req.url, c.req.header("host"));
      const suffix = grant.tokenQuery === "" ? "" : `?${grant.tokenQuery}`;
      const pieces = channelPlaylistPieces(
        playlistChannels(deps.catalog.list(), grant.channels),
        (ch) => `${base}/v1/play/${encodeURIComponent(ch.id)}/index.m3u8${suffix}`,
        { guideUrl: deps.guideUrl?.(base) },
      );
      return c.body(piecewiseBody(pieces), 200, { "Content-Type": M3U_CONTENT_TYPE });
    },
  });
}
