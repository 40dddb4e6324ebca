import { GatewayError } from "@svc/core/errors";
import { readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, requestBase } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
import { MAX_EXPIRY_SEC } from "../services/api-tokens/token-record.js";
import { renderPlaybackKey } from "../services/playback-keys/key-store.js";
import {
  createPlaybackKey,
  deletePlaybackKey,
  revokePlaybackKey,
  rotateXtreamPassword,
} from "../services/playback-keys/manage.js";
import {
  accessLog,
  accessLogCleared,
  issuedPlaybackKey,
  issuedXtreamPassword,
  okAnswer,
  playbackKeyList,
} from "./answers.js";

const maxConnections = v.pipe(
  v.number(),
  v.integer("must be an integer"),
  v.minValue(1, "must be 1..10000"),
  v.maxValue(10_000, "must be 1..10000"),
);

export const playbackKeyCreateBody = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(100)),
  note: v.optional(v.pipe(v.string(), v.maxLength(1000)), ""),
  channel_ids: v.optional(v.pipe(v.array(v.string()), v.maxLength(10_000)), []),
  expires_in_sec: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be an integer"),
      v.minValue(0, "must be 0 (no expiry) or more"),
      v.maxValue(MAX_EXPIRY_SEC, "at most 10 years"),
    ),
    0,
  ),
  /** Extensions "Connection limits": concurrent streams under the key; null or absent: unlimited. */
  max_connections: v.optional(v.nullable(maxConnections), null),
  // Extensions "Xtream Codes output": unique, 1-64 characters, no `/` (it is a path segment).
  xtream_username: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, "must not be empty"),
      v.maxLength(64, "at most 64 characters"),
      v.regex(/^[^/]*$/, "must not contain /"),
    ),
  ),
});

/** Spec: the access-log listing takes `limit` (here 1..1000, default 100). */
const MAX_LIST = 1000;

export const playbackKeyRoutes = defineRoutes("/v1/admin", {
  list: {
    method: "GET",
    path: "/access-tokens",
    access: admin("read"),
    summary: "List playback keys",
    tag: "playback-keys",
    success: [200, "`{access_tokens}`", playbackKeyList],
  },
  create: {
    method: "POST",
    path: "/access-tokens",
    access: admin("write"),
    summary: "Create a playback key",
    tag: "playback-keys",
    body: playbackKeyCreateBody,
    success: [
      201,
      "`{id, name, token, token_prefix, scope, playlist_url, created_at, expires_at, max_connections, warning}` (+ `xtream_username`, `xtream_password` with a username; `hdhomerun_url` with extensions.hdhomerun)",
      issuedPlaybackKey,
    ],
    errors: ["invalid_request"],
  },
  revoke: {
    method: "POST",
    path: "/access-tokens/:id/revoke",
    access: admin("delete"),
    summary: "Revoke a playback key",
    tag: "playback-keys",
    success: [200, "`{ok: true}`", okAnswer],
    errors: ["not_found", "conflict"],
    ifMatch: "optional",
  },
  xtreamPassword: {
    method: "POST",
    path: "/access-tokens/:id/xtream-password",
    access: admin("write"),
    summary: "New Xtream password of a playback key (extension xtream)",
    tag: "playback-keys",
    success: [
      200,
      "`{id, xtream_username, xtream_password, revision, warning}`",
      issuedXtreamPassword,
    ],
    errors: ["not_found", "conflict", "invalid_request"],
    ifMatch: "optional",
    extension: "xtream",
  },
  remove: {
    method: "DELETE",
    path: "/access-tokens/:id",
    access: admin("delete"),
    summary: "Delete a playback key",
    tag: "playback-keys",
    success: [200, "`{ok: true}`", okAnswer],
    errors: ["not_found", "conflict"],
    ifMatch: "optional",
  },
  logs: {
    method: "GET",
    path: "/access-logs",
    access: admin("read"),
    summary: "Playback access log",
    tag: "playback-keys",
    success: [200, "`{access_logs}`", accessLog],
    errors: ["invalid_request"],
    query: [
      {
        name: "limit",
        description: "1..1000, default 100",
        schema: { type: "integer", minimum: 1, maximum: 1000 },
      },
      { name: "token_id", description: "only this playback key", schema: { type: "string" } },
    ],
  },
  clearLogs: {
    method: "DELETE",
    path: "/access-logs",
    access: admin("delete"),
    summary: "Clear the access log",
    tag: "playback-keys",
    success: [200, "`{deleted}`", accessLogCleared],
  },
});

/** Playback keys (`/v1/admin/access-tokens`) and their access log. */
export function createPlaybackKeyRoutes(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(
    playbackKeyRoutes,
    {
      list: async (c) => {
        // last_used_at: this instance's queued uses, then every instance's committed ones.
        await ctx.accessLog.flush();
        await ctx.keys.refreshUsage();
        return c.json({
          access_tokens: ctx.keys.list().map((k) => ({
            ...renderPlaybackKey(k),
            active_cons: ctx.keyConnections?.(k.id) ?? 0,
          })),
        });
      },

      create: async (c) => {
        const body = await readJsonBody(c, playbackKeyCreateBody);
        const created = await createPlaybackKey(ctx.keys, ctx.channels, requestBase(ctx, c), {
          name: body.name,
          note: body.note,
          channelIds: body.channel_ids,
          expiresInSec: body.expires_in_sec,
          maxConnections: body.max_connections,
          xtreamUsername: body.xtream_username,
        });
        // Extensions "HDHomeRun": the key's tuner address, shown once with the key.
        const hdhr = ctx.config.extensions.hdhomerun.enabled
          ? { hdhomerun_url: `${requestBase(ctx, c)}/p/${created.token}/hdhr` }
          : {};
        return c.json({ ...created, ...hdhr }, 201);
      },

      revoke: async (c) =>
        c.json(await revokePlaybackKey(ctx.keys, c.req.param("id"), c.req.header("if-match"))),

      xtreamPassword: async (c) =>
        c.json(await rotateXtreamPassword(ctx.keys, c.req.param("id"), c.req.header("if-match"))),

      remove: async (c) =>
        c.json(await deletePlaybackKey(ctx.keys, c.req.param("id"), c.req.header("if-match"))),

      logs: async (c) => {
        const raw = c.req.query("limit");
        const limit = raw === undefined ? 100 : Number(raw);
        if (
          !Number.isInteger(limit) ||
          limit < 1 ||
          limit > MAX_LIST ||
          !/^[0-9]+$/.test(raw ?? "100")
        ) {
          throw new GatewayError("invalid_request", `limit: must be an integer 1..${MAX_LIST}`);
        }
        const tokenId = c.req.query("token_id");
        return c.json({
          access_logs: await ctx.accessLog.list({
            limit,
            tokenId: tokenId === "" ? undefined : tokenId,
          }),
        });
      },

      clearLogs: async (c) => c.json({ deleted: await ctx.accessLog.clear() }),
    },
    ctx.config.extensions,
  );
}
