import { Readable } from "node:stream";
import type { Channel } from "@svc/core/catalog";
import { GatewayError } from "@svc/core/errors";
import { type AppEnv, piecewiseBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import { type PlayRouteFamily, playRouteFamily } from "@svc/playback/play";
import { channelPlaylistPieces, M3U_CONTENT_TYPE, playlistChannels } from "@svc/playback/routes";
import { type Context, Hono } from "hono";
import { type AdminContext, requestBase } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { XTREAM_LOGIN } from "../http/route-access.js";
import { channelNumbers } from "../services/channels/channel-numbers.js";
import { keyChannels, type PlaybackKeyRecord } from "../services/playback-keys/key-store.js";
import { connectionFigures } from "../services/xtream/connections.js";
import {
  epgListings,
  liveCategories,
  liveStreams,
  loginAnswer,
} from "../services/xtream/player-api.js";
import { StreamIds } from "../services/xtream/stream-ids.js";
import type { StoredChannel } from "../storage/channels/stored-channel.js";
import { xtreamPlayerApi } from "./answers.js";
import type { XtreamAccess } from "./xtream-access.js";

const tag = "xtream";
const extension = "xtream";
const LOGIN_ERRORS = ["unauthorized", "too_many_requests", "invalid_request"] as const;

/** Extensions "Xtream Codes output": the routes at the root, switched on by `extensions.xtream`. */
export const xtreamRoutes = defineRoutes("/", {
  playerApi: {
    method: "GET",
    path: "/player_api.php",
    access: XTREAM_LOGIN,
    summary: "Xtream player API (login, live categories and streams, short EPG)",
    tag,
    success: [200, "`{user_info, server_info}` or the action's array/object", xtreamPlayerApi],
    errors: LOGIN_ERRORS,
    extension,
  },
  playerApiPost: {
    method: "POST",
    path: "/player_api.php",
    access: XTREAM_LOGIN,
    summary: "Xtream player API, parameters in a form body",
    tag,
    success: [200, "as `GET /player_api.php`", xtreamPlayerApi],
    errors: LOGIN_ERRORS,
    extension,
  },
  playlist: {
    method: "GET",
    path: "/get.php",
    access: XTREAM_LOGIN,
    summary: "M3U of the Xtream login's channels",
    tag,
    success: [200, "M3U", M3U_CONTENT_TYPE],
    errors: LOGIN_ERRORS,
    extension,
  },
  playlistPost: {
    method: "POST",
    path: "/get.php",
    access: XTREAM_LOGIN,
    summary: "M3U of the Xtream login's channels, parameters in a form body",
    tag,
    success: [200, "M3U", M3U_CONTENT_TYPE],
    errors: LOGIN_ERRORS,
    extension,
  },
  xmltv: {
    method: "GET",
    path: "/xmltv.php",
    access: XTREAM_LOGIN,
    summary: "XMLTV of the Xtream login's channels",
    tag,
    success: [200, "XMLTV", "application/xml"],
    errors: LOGIN_ERRORS,
    extension,
  },
  live: {
    method: "GET",
    path: "/live/:username/:password/:stream",
    access: XTREAM_LOGIN,
    summary: "Live stream `{stream_id}.ts`, `{stream_id}` (MPEG-TS) or `{stream_id}.m3u8` (HLS)",
    tag,
    success: [200, "MPEG-TS stream or HLS playlist", "video/mp2t"],
    errors: ["unauthorized", "forbidden", "not_found", "too_many_requests", "upstream_error"],
    extension,
  },
});

/**
 * The play routes under an Xtream login (`/live/{username}/{password}/play/{id}/…`): what
 * `{stream_id}.ts` and `.m3u8` are answered by, and where the HLS playlist's URLs point.
 * Every route is part of the `xtream` extension (registered only when it is on).
 */
export const xtreamPlayRoutes: PlayRouteFamily = (() => {
  const family = playRouteFamily("/live/:username/:password/play", XTREAM_LOGIN, " (Xtream login)");
  const routes = Object.fromEntries(
    Object.entries(family.routes).map(([name, decl]) => [
      name,
      { ...decl, extension: "xtream" as const },
    ]),
  );
  return defineRoutes(family.base, routes) as unknown as PlayRouteFamily;
})();

/** The largest form body `player_api.php` and `get.php` read. */
const MAX_FORM_BYTES = 16 * 1024;

/** Query parameters, and for a POST its form body's fields over them. */
async function parametersOf(c: Context): Promise<URLSearchParams> {
  const params = new URL(c.req.url).searchParams;
  if (c.req.method !== "POST" || c.req.raw.body === null) return params;
  const reader = c.req.raw.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_FORM_BYTES) {
      await reader.cancel();
      throw new GatewayError("invalid_request", `form body larger than ${MAX_FORM_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  for (const [name, value] of form) params.set(name, value);
  return params;
}

/** What the Xtream routes use besides the admin context. */
export interface XtreamRouteDeps {
  readonly access: XtreamAccess;
  /**
   * The play routes, `xtreamPlayRoutes` among them: `{stream_id}.ts` and `.m3u8` are
   * answered by them in this process, on the client's own connection.
   */
  readonly play: Hono<AppEnv>;
}

/** `player_api.php`, `get.php`, `xmltv.php` and `/live/{username}/{password}/{stream}`. */
export function createXtreamRoutes(ctx: AdminContext, deps: XtreamRouteDeps): Hono<AdminEnv> {
  const { access } = deps;
  // The request context of each in-process request: its id and logger carry over.
  const outerOf = new WeakMap<Request, Context<AdminEnv>>();
  const play = new Hono<AppEnv>();
  play.use(async (c, next) => {
    const outer = outerOf.get(c.req.raw);
    if (outer !== undefined) {
      c.set("requestId", outer.get("requestId"));
      c.set("log", outer.get("log"));
      c.set("bodyLimit", outer.get("bodyLimit"));
    }
    await next();
  });
  play.route("/", deps.play);
  // Errors of the play routes reach the handler below, then the app's one error handler.
  play.onError((err) => {
    throw err;
  });
  let cached: { list: readonly StoredChannel[]; ids: StreamIds } | undefined;
  /** Stream ids of the whole catalog, rebuilt when the channel list changed. */
  const streamIds = (): StreamIds => {
    const list = ctx.channels.list();
    if (cached?.list !== list) cached = { list, ids: new StreamIds(list) };
    return cached.ids;
  };
  /** The key's enabled channels in catalog order. */
  const channelsOf = (key: PlaybackKeyRecord) =>
    playlistChannels(ctx.channels.list(), keyChannels(key));
  const logoUrl = (base: string) => (ch: Channel) =>
    ch.logo_url || `${base}/v1/logo/${encodeURIComponent(ch.id)}`;

  const playerApi = async (c: Context<AdminEnv>) => {
    const params = await parametersOf(c);
    const username = params.get("username") ?? "";
    const password = params.get("password") ?? "";
    const key = await access.login(c, username, password);
    // What Xtream apps read as a refused login (they do not look at the status).
    if (key === undefined) return c.json({ user_info: { auth: 0 } }, 200);
    const base = requestBase(ctx, c);
    const action = params.get("action") ?? "";
    switch (action) {
      case "get_live_categories":
        return c.json(liveCategories(channelsOf(key)));
      case "get_live_streams":
        return c.json(
          liveStreams(channelsOf(key), streamIds(), {
            categoryId: params.get("category_id") || undefined,
            logoUrl: logoUrl(base),
            numbers: channelNumbers(ctx.channels.list(), { whole: true }),
          }),
        );
      case "get_short_epg":
      case "get_simple_data_table":
        return c.json(await shortEpg(key, params, action === "get_short_epg"));
      case "get_vod_categories":
      case "get_vod_streams":
      case "get_series_categories":
      case "get_series":
        return c.json([]);
      default:
        return c.json(loginAnswer(key, password, base, connectionFigures(key, ctx.keyConnections)));
    }
  };

  const shortEpg = async (key: PlaybackKeyRecord, params: URLSearchParams, short: boolean) => {
    const streamId = Number(params.get("stream_id"));
    const channelId = Number.isSafeInteger(streamId) ? streamIds().channel(streamId) : undefined;
    const ch = channelId === undefined ? undefined : ctx.channels.get(channelId);
    const scope = keyChannels(key);
    if (ch === undefined || ch.disabled || (scope !== null && !scope.has(ch.id)))
      return { epg_listings: [] };
    const rawLimit = Number(params.get("limit") ?? "4");
    const limit = Number.isInteger(rawLimit) && rawLimit > 0 ? Math.min(rawLimit, 1000) : 4;
    const programmes = await ctx.guide.channelProgrammes(ch.id);
    return { epg_listings: epgListings(programmes, ch, streamId, { short, limit }) };
  };

  const playlist = async (c: Context<AdminEnv>) => {
    const params = await parametersOf(c);
    const username = params.get("username") ?? "";
    const password = params.get("password") ?? "";
    const key = await access.login(c, username, password);
    if (key === undefined) throw access.unauthorized();
    const type = params.get("type") ?? "m3u_plus";
    if (type !== "m3u_plus" && type !== "m3u")
      throw new GatewayError("invalid_request", "type: must be m3u_plus or m3u");
    const output = params.get("output") ?? "ts";
    if (output !== "ts" && output !== "m3u8" && output !== "hls")
      throw new GatewayError("invalid_request", "output: must be ts or m3u8");
    const ext = output === "ts" ? "ts" : "m3u8";
    const base = requestBase(ctx, c);
    const login = `${encodeURIComponent(username)}/${encodeURIComponent(password)}`;
    const query = `username=${encodeURIComponent(username)}&password=${encodeURIComponent(password)}`;
    const ids = streamIds();
    const pieces = channelPlaylistPieces(
      channelsOf(key),
      (ch) => `${base}/live/${login}/${ids.of(ch.id)}.${ext}`,
      {
        guideUrl: `${base}/xmltv.php?${query}`,
        logoUrl: logoUrl(base),
        tvgId: (ch) => ch.id,
      },
    );
    return c.body(piecewiseBody(pieces), 200, { "Content-Type": M3U_CONTENT_TYPE });
  };

  const app = new Hono<AdminEnv>();
  for (const path of ["/player_api.php", "/get.php", "/xmltv.php", "/live/*"])
    app.use(path, access.recorder);
  app.route(
    xtreamRoutes.base,
    routesOf<AdminEnv, "/", (typeof xtreamRoutes)["routes"]>(
      xtreamRoutes,
      {
        playerApi,
        playerApiPost: playerApi,
        playlist,
        playlistPost: playlist,

        xmltv: async (c) => {
          const params = new URL(c.req.url).searchParams;
          const key = await access.login(
            c,
            params.get("username") ?? "",
            params.get("password") ?? "",
          );
          if (key === undefined) throw access.unauthorized();
          const out = await ctx.guide.epg(requestBase(ctx, c), { channels: [...channelsOf(key)] });
          const xml = Readable.from(out.body, { objectMode: false, highWaterMark: 1 });
          return c.body(Readable.toWeb(xml) as ReadableStream, 200, {
            "Content-Type": "application/xml; charset=utf-8",
            "Cache-Control": "private, no-cache",
          });
        },

        live: async (c) => {
          const m = /^([0-9]{1,10})(?:\.(ts|m3u8))?$/.exec(c.req.param("stream"));
          if (m === null) throw new GatewayError("not_found", "not found");
          const username = c.req.param("username");
          const password = c.req.param("password");
          const key = await access.login(c, username, password);
          if (key === undefined) throw access.unauthorized();
          const channelId = streamIds().channel(Number(m[1]));
          const ch = channelId === undefined ? undefined : ctx.channels.get(channelId);
          if (ch === undefined || ch.disabled)
            throw new GatewayError("not_found", "no such stream");
          access.noteChannel(c, ch.id);
          const scope = keyChannels(key);
          if (scope !== null && !scope.has(ch.id))
            throw new GatewayError("forbidden", "channel not covered by this Xtream login");
          // Served by the play routes under the same login, on this connection: the HLS
          // playlist's URLs then point there (the key's token is not known here, only its
          // digest, so they cannot point under `/p/{token}/`; docs/xtream.md).
          const target = m[2] === "m3u8" ? "index.m3u8" : "stream.ts";
          const u = new URL(c.req.url);
          u.pathname = `/live/${encodeURIComponent(username)}/${encodeURIComponent(password)}/play/${encodeURIComponent(ch.id)}/${target}`;
          const inner = new Request(u, {
            method: c.req.method,
            headers: c.req.raw.headers,
            signal: c.req.raw.signal,
          });
          outerOf.set(inner, c);
          return play.fetch(inner, c.env);
        },
      },
      ctx.config.extensions,
    ),
  );
  return app;
}
