import { isoSeconds } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import { piecewiseBody, readJsonBody } from "@svc/core/http";
import { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, principalOf, requestBase } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { etag } from "../http/if-match.js";
import { reorderChannels, setAllDisabled } from "../services/channels/bulk.js";
import { channelListJson } from "../services/channels/channel-list-json.js";
import {
  channelPlayUrl,
  renderAdminChannel,
  renderEgressBinding,
} from "../services/channels/channel-view.js";
import { issuePreview } from "../services/channels/preview.js";
import {
  createChannel,
  deleteChannel,
  existingChannel,
  replaceChannel,
} from "../services/channels/write.js";
import { channelWriteBody } from "../services/channels/write-body.js";

export const reorderBody = v.strictObject({
  ids: v.array(v.string()),
  revisions: v.optional(v.record(v.string(), v.pipe(v.number(), v.integer()))),
});

/** The channels family of the admin API (spec "Channels") and the preview route. */
export function createChannelRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.get("/v1/admin/channels", (c) => {
    const base = requestBase(ctx, c);
    const pieces = channelListJson(ctx.channels.list(), (ch) => renderAdminChannel(ch, base));
    // c.json's content type; the body streams (channelListJson).
    return c.body(piecewiseBody(pieces), 200, { "Content-Type": "application/json" });
  });

  // Static paths first: `reorder`, `enable-all` and `disable-all` are not channel ids.
  app.post("/v1/admin/channels/enable-all", async (c) =>
    c.json(await setAllDisabled(ctx.channels, false)),
  );
  app.post("/v1/admin/channels/disable-all", async (c) =>
    c.json(await setAllDisabled(ctx.channels, true)),
  );
  app.put("/v1/admin/channels/reorder", async (c) => {
    const body = await readJsonBody(c, reorderBody);
    return c.json(await reorderChannels(ctx.channels, body.ids, body.revisions));
  });

  app.get("/v1/admin/channels/:id", (c) => {
    const ch = existingChannel(ctx.channels, c.req.param("id"));
    c.header("ETag", etag(ch.revision));
    return c.json({
      channel: renderAdminChannel(ch, requestBase(ctx, c)),
      egress_binding: renderEgressBinding(ch),
      effective_user_agent: ch.user_agent === "" ? ctx.defaultUserAgent : ch.user_agent,
      revision: ch.revision,
      updated_at: isoSeconds(new Date(ch.updated_at)),
    });
  });

  app.post("/v1/admin/channels", async (c) => {
    const body = await readJsonBody(c, channelWriteBody);
    if (c.req.header("if-match") !== undefined) {
      throw new GatewayError("conflict", "If-Match on create: the channel does not exist yet");
    }
    const result = await createChannel({ egress: ctx.egressConfig }, ctx.channels, body);
    c.header("ETag", etag(ctx.channels.get(result.id)!.revision));
    return c.json(result, 201);
  });

  app.put("/v1/admin/channels/:id", async (c) => {
    const id = c.req.param("id");
    existingChannel(ctx.channels, id);
    const body = await readJsonBody(c, channelWriteBody);
    const result = await replaceChannel(
      { egress: ctx.egressConfig },
      ctx.channels,
      id,
      c.req.header("if-match"),
      body,
    );
    c.header("ETag", etag(ctx.channels.get(id)!.revision));
    return c.json(result);
  });

  app.delete("/v1/admin/channels/:id", async (c) =>
    c.json(await deleteChannel(ctx.channels, c.req.param("id"), c.req.header("if-match"))),
  );

  app.post("/v1/admin/channels/:id/preview", async (c) => {
    const ch = existingChannel(ctx.channels, c.req.param("id"));
    const issued = await issuePreview(ctx, principalOf(c), ch.id);
    const url = `${channelPlayUrl(requestBase(ctx, c), ch.id)}?token=${encodeURIComponent(issued.token)}`;
    return c.json({ play_url: url, expires_at: isoSeconds(issued.expiresAt) }, 201);
  });

  return app;
}
