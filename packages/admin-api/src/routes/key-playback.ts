import { GatewayError } from "@svc/core/errors";
import type { AppEnv } from "@svc/core/http";
import { clientAddress, piecewiseBody } from "@svc/core/http";
import { redactPath } from "@svc/core/log";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import { type PlayGrant, playRouteFamily } from "@svc/playback/play";
import { channelPlaylistPieces, M3U_CONTENT_TYPE, playlistChannels } from "@svc/playback/routes";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { type AdminContext, requestBase } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { PLAYBACK_KEY } from "../http/route-access.js";
import {
  assertKeyCoversChannel,
  checkPlaybackKeyFresh,
  unauthorizedKey,
} from "../services/playback-keys/authorize-key.js";
import { keyChannels, type PlaybackKeyRecord } from "../services/playback-keys/key-store.js";

/**
 * `/p/{token}/…` → the key segment and, under `play/{id}/`, the channel id. `hdhr`: the
 * HDHomeRun device paths count too (extensions "HDHomeRun", when switched on).
 */
export function keyPathParts(
  path: string,
  hdhr = false,
): { key: string; channelId: string | null } | undefined {
  const m = (hdhr ? KEY_PATH_HDHR : KEY_PATH).exec(path);
  if (m === null) return undefined;
  return { key: m[1]!, channelId: m[2] === undefined ? null : safeDecode(m[2]) };
}

const KEY_PATH = /^\/p\/([^/]+)\/(?:playlist\.m3u$|play\/([^/]+)\/)/;
const KEY_PATH_HDHR = /^\/p\/([^/]+)\/(?:playlist\.m3u$|play\/([^/]+)\/|hdhr\/)/;

/** A malformed percent-escape stays as written (it then names no channel) instead of throwing. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The playback-key credential of `/p/{token}/…` (spec "Playback" 5): checked
 * whatever `play_require_auth` says, reading no request header (only the
 * path), 401 for an invalid, disabled, revoked or expired key, 403 for a
 * channel outside its scope. Each use of an existing key is queued as one
 * access record with the final status, the key cut to its display prefix.
 */
export function playbackKeyGate(ctx: AdminContext): MiddlewareHandler<AdminEnv> {
  const hdhr = ctx.config.extensions.hdhomerun.enabled;
  return async (c, next) => {
    const parts = keyPathParts(c.req.path, hdhr);
    if (parts === undefined) throw new GatewayError("not_found", "not found");
    const check = await checkPlaybackKeyFresh(ctx.keys, parts.key, ctx.credentialMisses);
    const record = (status: number) => {
      if (check.key === undefined) return;
      ctx.accessLog.record({
        tokenId: check.key.id,
        tokenPrefix: check.key.tokenPrefix,
        path: redactPath(c.req.path),
        channelId: parts.channelId,
        status,
        remote: clientAddress(c),
        createdAt: Date.now(),
      });
    };
    if (!check.ok) {
      record(401);
      throw unauthorizedKey();
    }
    if (parts.channelId !== null) {
      try {
        assertKeyCoversChannel(check.key, parts.channelId);
      } catch (err) {
        record(403);
        throw err;
      }
    }
    c.set("playbackKey", check.key);
    try {
      await next();
    } finally {
      record(c.res.status);
    }
  };
}

/** The play routes under a playback key (spec "Playback" 5), mounted with {@link keyPlayGrant}. */
export const keyPlayRoutes = playRouteFamily("/p/:token/play", PLAYBACK_KEY, " (playback key)");

export const keyPlaylistRoutes = defineRoutes("/p/:token", {
  playlist: {
    method: "GET",
    path: "/playlist.m3u",
    access: PLAYBACK_KEY,
    summary: "Playlist of a playback key",
    tag: "playback",
    success: [200, "M3U", M3U_CONTENT_TYPE],
  },
});

/**
 * `GET /p/{token}/playlist.m3u`: the key's enabled channels as M3U, each
 * pointing at `/p/{token}/play/{id}/index.m3u8`.
 */
export function createKeyPlaylistRoute(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(keyPlaylistRoutes, {
    playlist: (c) => {
      const key = c.get("playbackKey");
      const token = c.req.param("token");
      const base = requestBase(ctx, c);
      const pieces = channelPlaylistPieces(
        playlistChannels(ctx.channels.list(), keyChannels(key)),
        (ch) => `${base}/p/${token}/play/${encodeURIComponent(ch.id)}/index.m3u8`,
        { guideUrl: ctx.guide.active() ? `${base}/v1/epg.xml.gz` : undefined },
      );
      return c.body(piecewiseBody(pieces), 200, { "Content-Type": M3U_CONTENT_TYPE });
    },
  });
}

/**
 * The `resolveGrant` of the play routes mounted at `/p/:token/play`: the key was
 * already checked (and its use is being recorded) by {@link playbackKeyGate},
 * which runs first on every `/p/` request; this turns it into the grant the
 * play routes use. Generated URLs keep the key in the path and add no query.
 */
export async function keyPlayGrant(c: Context<AppEnv>): Promise<PlayGrant> {
  // Same request context as the gate; only the variable's type lives in AdminEnv.
  const key = (c as unknown as Context<AdminEnv>).get("playbackKey");
  const token = c.req.param("token");
  if (key === undefined || token === undefined) throw unauthorizedKey();
  return keyGrant(key, `/p/${token}/play`);
}

/**
 * What a playback key may play, as the play routes read it, with generated URLs under
 * `pathPrefix` (`/p/{token}/play`, or an Xtream login's): its channels, and its
 * `max_connections` seats (extensions "Connection limits"), `max` by default.
 */
export function keyGrant(
  key: PlaybackKeyRecord,
  pathPrefix: string,
  max: number | null = key.maxConnections,
): PlayGrant {
  return {
    channels: keyChannels(key),
    pathPrefix,
    urlQuery: "",
    ...(max === null ? {} : { connections: { keyId: key.id, max } }),
  };
}
