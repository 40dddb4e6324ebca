import { GatewayError } from "@svc/core/errors";
import { readJsonBody } from "@svc/core/http";
import { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, requestBase } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { MAX_EXPIRY_SEC } from "../services/api-tokens/token-record.js";
import { renderPlaybackKey } from "../services/playback-keys/key-store.js";
import {
  createPlaybackKey,
  deletePlaybackKey,
  revokePlaybackKey,
} from "../services/playback-keys/manage.js";

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
});

/** Spec: the access-log listing takes `limit` (here 1..1000, default 100). */
const MAX_LIST = 1000;

/** Playback keys (`/v1/admin/access-tokens`) and their access log. */
export function createPlaybackKeyRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.get("/v1/admin/access-tokens", async (c) => {
    // last_used_at: this instance's queued uses, then every instance's committed ones.
    await ctx.accessLog.flush();
    await ctx.keys.refreshUsage();
    return c.json({ access_tokens: ctx.keys.list().map(renderPlaybackKey) });
  });

  app.post("/v1/admin/access-tokens", async (c) => {
    const body = await readJsonBody(c, playbackKeyCreateBody);
    const created = await createPlaybackKey(ctx.keys, ctx.channels, requestBase(ctx, c), {
      name: body.name,
      note: body.note,
      channelIds: body.channel_ids,
      expiresInSec: body.expires_in_sec,
    });
    return c.json(created, 201);
  });

  app.post("/v1/admin/access-tokens/:id/revoke", async (c) =>
    c.json(await revokePlaybackKey(ctx.keys, c.req.param("id"), c.req.header("if-match"))),
  );

  app.delete("/v1/admin/access-tokens/:id", async (c) =>
    c.json(await deletePlaybackKey(ctx.keys, c.req.param("id"), c.req.header("if-match"))),
  );

  app.get("/v1/admin/access-logs", async (c) => {
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
  });

  app.delete("/v1/admin/access-logs", async (c) =>
    c.json({ deleted: await ctx.accessLog.clear() }),
  );

  return app;
}
