import { readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import * as v from "valibot";
import type { AdminContext } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
import { etag } from "../services/if-match.js";
import { certificateFacts } from "../services/settings/certificate-facts.js";
import type { SettingsRow } from "../services/settings/settings-store.js";
import { updateSettings } from "../services/settings/update.js";
import { settings } from "./answers.js";

export const settingsWriteBody = v.strictObject({
  public_base_url: v.string(),
  access_log_retention_days: v.string(),
  tls_enabled: v.optional(v.boolean()),
});

/** The settings resource (spec "Settings"). */
export const settingsRoutes = defineRoutes("/v1/admin/settings", {
  read: {
    method: "GET",
    path: "/",
    access: admin("read"),
    summary: "Settings",
    tag: "settings",
    success: [200, "The settings resource; ETag", settings],
  },
  update: {
    method: "PUT",
    path: "/",
    access: admin("write"),
    summary: "Update runtime settings",
    tag: "settings",
    body: settingsWriteBody,
    success: [200, "The settings resource", settings],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
});

export function createSettingsRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const s = ctx.config.server;
  const render = (row: SettingsRow) => ({
    listen: s.listen,
    cors_origins: ctx.config.security.cors_origins,
    public_hosts: ctx.config.security.public_hosts,
    play_require_auth: ctx.config.security.play_require_auth,
    tls_listen: s.tls_listen,
    public_base_url: row.publicBaseUrl,
    access_log_retention_days: String(row.accessLogRetentionDays),
    tls_enabled: row.tlsEnabled,
    split_listening: s.tls_listen !== "",
    certificate: certificateFacts(ctx.config),
    revision: row.revision,
  });

  return routesOf(settingsRoutes, {
    read: (c) => {
      const row = ctx.settings.current();
      c.header("ETag", etag(row.revision));
      return c.json(render(row));
    },

    update: async (c) => {
      const body = await readJsonBody(c, settingsWriteBody);
      // A shorter retention purges at once; the purge is awaited before the answer.
      const purges: Promise<number>[] = [];
      const row = await updateSettings(
        ctx.settings,
        (days) => void purges.push(ctx.accessLog.purge(days)),
        c.req.header("if-match"),
        body,
      );
      await Promise.all(purges);
      c.header("ETag", etag(row.revision));
      return c.json(render(row));
    },
  });
}
