import { piecewiseBody, piecewiseStream, readJsonBodyWithPieces } from "@svc/core/http";
import { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, requestBase } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { EXPORT_FILE_NAME, exportPlaylist } from "../services/m3u/export.js";
import { importAnswerPieces } from "../services/m3u/import-answer.js";
import { applyPlan, planImportInSlices } from "../services/m3u/import-plan.js";

export const m3uImportBody = v.strictObject({
  content: v.string(),
  apply: v.optional(v.boolean(), false),
  revisions: v.optional(v.record(v.string(), v.pipe(v.number(), v.integer()))),
});

/** M3U import and export (spec "Import and export"; docs/m3u.md). */
export function createM3uRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();

  app.post("/v1/admin/import/m3u", async (c) => {
    // `content` as the pieces it was decoded in, read in slices, answered as a stream: a
    // 32 MiB playlist never holds the event loop that playback shares (issue 30 item 1).
    const body = await readJsonBodyWithPieces(c, m3uImportBody, "content");
    const plan = await planImportInSlices(body.content.pieces, ctx.channels);
    if (body.apply) await applyPlan(plan, ctx.channels, body.revisions);
    return c.body(piecewiseStream(importAnswerPieces(plan, !body.apply)), 200, {
      "Content-Type": "application/json",
    });
  });

  app.post("/v1/admin/exports/m3u", async (c) => {
    const pieces = await exportPlaylist(
      { channels: ctx.channels, keys: ctx.keys, guideActive: ctx.guideActive },
      requestBase(ctx, c),
    );
    return c.body(piecewiseBody(pieces), 201, {
      "Content-Type": "application/vnd.apple.mpegurl",
      "Content-Disposition": `attachment; filename="${EXPORT_FILE_NAME}"`,
    });
  });

  return app;
}
