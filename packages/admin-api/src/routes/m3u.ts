import { readJsonBody } from "@svc/core/http";
import { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, requestBase } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { EXPORT_FILE_NAME, exportPlaylist } from "../services/m3u/export.js";
import { applyPlan, planImport } from "../services/m3u/import-plan.js";

export const m3uImportBody = v.strictObject({
  content: v.string(),
  apply: v.optional(v.boolean(), false),
  revisions: v.optional(v.record(v.string(), v.pipe(v.number(), v.integer()))),
});

/** M3U import and export (spec "Import and export"; docs/m3u.md). */
export function createM3uRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.post("/v1/admin/import/m3u", async (c) => {
    const body = await readJsonBody(c, m3uImportBody);
    const plan = planImport(body.content, ctx.channels);
    if (body.apply) applyPlan(plan, ctx.channels, body.revisions);
    const count = (action: string) => plan.entries.filter((e) => e.action === action).length;
    return c.json({
      preview: !body.apply,
      count: plan.entries.length,
      created: count("create"),
      updated: count("update"),
      skipped: count("skip"),
      entries: plan.entries,
      revisions: plan.revisions,
      x_tvg_url: plan.tvgUrl,
    });
  });

  app.post("/v1/admin/exports/m3u", async (c) => {
    const text = await exportPlaylist(
      { channels: ctx.channels, keys: ctx.keys, guideActive: ctx.guideActive },
      requestBase(ctx, c),
    );
    return c.body(text, 201, {
      "Content-Type": "application/vnd.apple.mpegurl",
      "Content-Disposition": `attachment; filename="${EXPORT_FILE_NAME}"`,
    });
  });

  return app;
}
