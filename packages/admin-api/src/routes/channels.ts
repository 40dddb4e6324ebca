import { isoSeconds } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import { piecewiseBody, readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, principalOf, requestBase } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
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
import { etag } from "../services/if-match.js";
import {
  adminChannelList,
  bulkAnswer,
  channelDeleteAnswer,
  channelDetail,
  channelWriteAnswer,
  previewAnswer,
  reorderAnswer,
} from "./answers.js";

export const reorderBody = v.strictObject({
  ids: v.array(v.string()),
  revisions: v.optional(v.record(v.string(), v.pipe(v.number(), v.integer()))),
});

const tag = "channels";

/** The channels family of the admin API (spec "Channels") and the preview route. */
export const channelRoutes = defineRoutes("/v1/admin/channels", {
  list: {
    method: "GET",
    path: "/",
    access: admin("read"),
    summary: "List channels (incl. disabled)",
    tag,
    success: [200, "`{channels}`", adminChannelList],
  },
  // Static paths first: `reorder`, `enable-all` and `disable-all` are not channel ids.
  enableAll: {
    method: "POST",
    path: "/enable-all",
    access: admin("write"),
    summary: "Enable every channel",
    tag,
    success: [200, "`{ok, changed, channel_ids}`", bulkAnswer],
  },
  disableAll: {
    method: "POST",
    path: "/disable-all",
    access: admin("write"),
    summary: "Disable every channel",
    tag,
    success: [200, "`{ok, changed, channel_ids}`", bulkAnswer],
  },
  reorder: {
    method: "PUT",
    path: "/reorder",
    access: admin("write"),
    summary: "Reorder channels",
    tag,
    body: reorderBody,
    success: [200, "`{ok, changed, channel_ids, revisions}`", reorderAnswer],
    errors: ["invalid_request", "conflict"],
  },
  detail: {
    method: "GET",
    path: "/:id",
    access: admin("read"),
    summary: "Channel detail",
    tag,
    success: [
      200,
      "`{channel, egress_binding, effective_user_agent, revision, updated_at}`; ETag",
      channelDetail,
    ],
    errors: ["not_found"],
  },
  create: {
    method: "POST",
    path: "/",
    access: admin("write"),
    summary: "Create a channel",
    tag,
    body: channelWriteBody,
    success: [201, "`{ok, id, egress_profile_id}`", channelWriteAnswer],
    errors: ["invalid_request", "conflict"],
  },
  replace: {
    method: "PUT",
    path: "/:id",
    access: admin("write"),
    summary: "Replace a channel",
    tag,
    body: channelWriteBody,
    success: [
      200,
      "`{ok, id, egress_profile_id}`, plus `dropped_secrets` when the source moved to another origin and stored secrets were left behind",
      channelWriteAnswer,
    ],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "optional",
  },
  remove: {
    method: "DELETE",
    path: "/:id",
    access: admin("delete"),
    summary: "Delete a channel",
    tag,
    success: [200, "`{ok, id}`", channelDeleteAnswer],
    errors: ["not_found", "conflict"],
    ifMatch: "optional",
  },
  preview: {
    method: "POST",
    path: "/:id/preview",
    access: admin("refresh"),
    summary: "Issue a 5-minute preview URL",
    tag: "sessions",
    success: [201, "`{play_url, expires_at}`", previewAnswer],
    errors: ["not_found"],
  },
});

export function createChannelRoutes(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(channelRoutes, {
    list: (c) => {
      const base = requestBase(ctx, c);
      const pieces = channelListJson(ctx.channels.list(), (ch) => renderAdminChannel(ch, base));
      // c.json's content type; the body streams (channelListJson).
      return c.body(piecewiseBody(pieces), 200, { "Content-Type": "application/json" });
    },

    enableAll: async (c) => c.json(await setAllDisabled(ctx.channels, false)),
    disableAll: async (c) => c.json(await setAllDisabled(ctx.channels, true)),
    reorder: async (c) => {
      const body = await readJsonBody(c, reorderBody);
      return c.json(await reorderChannels(ctx.channels, body.ids, body.revisions));
    },

    detail: (c) => {
      const ch = existingChannel(ctx.channels, c.req.param("id"));
      c.header("ETag", etag(ch.revision));
      return c.json({
        channel: renderAdminChannel(ch, requestBase(ctx, c)),
        egress_binding: renderEgressBinding(ch),
        effective_user_agent: ch.user_agent === "" ? ctx.defaultUserAgent : ch.user_agent,
        revision: ch.revision,
        updated_at: isoSeconds(new Date(ch.updated_at)),
      });
    },

    create: async (c) => {
      const body = await readJsonBody(c, channelWriteBody);
      if (c.req.header("if-match") !== undefined) {
        throw new GatewayError("conflict", "If-Match on create: the channel does not exist yet");
      }
      const result = await createChannel({ egress: ctx.egressConfig }, ctx.channels, body);
      c.header("ETag", etag(ctx.channels.get(result.id)!.revision));
      return c.json(result, 201);
    },

    replace: async (c) => {
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
    },

    remove: async (c) =>
      c.json(await deleteChannel(ctx.channels, c.req.param("id"), c.req.header("if-match"))),

    preview: async (c) => {
      const ch = existingChannel(ctx.channels, c.req.param("id"));
      const issued = await issuePreview(ctx, principalOf(c), ch.id);
      const url = `${channelPlayUrl(requestBase(ctx, c), ch.id)}?token=${encodeURIComponent(issued.token)}`;
      return c.json({ play_url: url, expires_at: isoSeconds(issued.expiresAt) }, 201);
    },
  });
}
