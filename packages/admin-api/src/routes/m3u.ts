import {
  IMPORT_BODY_MULTIPLIER,
  piecewiseBody,
  piecewiseStream,
  readJsonBodyWithPieces,
} from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Context, Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, requestBase } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
import { EXPORT_FILE_NAME, exportPlaylist } from "../services/m3u/export.js";
import { importAnswerPieces } from "../services/m3u/import-answer.js";
import { applyPlan, planImportInSlices } from "../services/m3u/import-plan.js";
import { importAnswer } from "./answers.js";

export const m3uImportBody = v.strictObject({
  content: v.string(),
  apply: v.optional(v.boolean(), false),
  revisions: v.optional(v.record(v.string(), v.pipe(v.number(), v.integer()))),
  // Extension (docs/m3u.md "Duplicates as fallback sources"): entries sharing a tvg-id become
  // one channel with fallback sources. The default keeps the specification's import.
  duplicates: v.optional(
    v.picklist(["channels", "fallbacks"], 'must be "channels" or "fallbacks"'),
    "channels",
  ),
});

/** M3U import and export (spec "Import and export"; docs/m3u.md). */
export const m3uRoutes = defineRoutes("/v1/admin", {
  import: {
    method: "POST",
    path: "/import/m3u",
    access: admin("write"),
    summary: "Import an M3U playlist (preview or apply)",
    tag: "m3u",
    body: m3uImportBody,
    // Room for a 40,000-channel playlist (docs/m3u.md).
    bodyLimitScale: IMPORT_BODY_MULTIPLIER,
    success: [
      200,
      '`{preview, count, created, updated, skipped, entries}`; an update entry that moves a source to another origin carries `dropped_secrets`; with `duplicates: "fallbacks"` also `fallbacks` (count), `fallback` entries with `fallback_index`, and `fallbacks` on each channel entry with a tvg-id',
      importAnswer,
    ],
    errors: ["invalid_request", "conflict"],
  },
  export: {
    method: "POST",
    path: "/exports/m3u",
    access: admin("write"),
    summary: "Export an M3U playlist with a new playback key",
    tag: "m3u",
    success: [201, "M3U file (attachment svc-playlist.m3u)", "application/vnd.apple.mpegurl"],
  },
});

export function createM3uRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const importM3u = async (c: Context<AdminEnv>) => {
    // `content` as the pieces it was decoded in, read in slices, answered as a stream: a
    // 32 MiB playlist never holds the event loop that playback shares (issue 30 item 1).
    const body = await readJsonBodyWithPieces(c, m3uImportBody, "content");
    const plan = await planImportInSlices(body.content.pieces, ctx.channels, body.duplicates);
    if (body.apply) await applyPlan(plan, ctx.channels, body.revisions);
    return c.body(piecewiseStream(importAnswerPieces(plan, !body.apply)), 200, {
      "Content-Type": "application/json",
    });
  };

  const exportM3u = async (c: Context<AdminEnv>) => {
    const pieces = await exportPlaylist(
      { channels: ctx.channels, keys: ctx.keys, guideActive: ctx.guideActive },
      requestBase(ctx, c),
    );
    return c.body(piecewiseBody(pieces), 201, {
      "Content-Type": "application/vnd.apple.mpegurl",
      "Content-Disposition": `attachment; filename="${EXPORT_FILE_NAME}"`,
    });
  };

  return routesOf(m3uRoutes, { import: importM3u, export: exportM3u });
}
