import { GatewayError } from "@svc/core/errors";
import { piecewiseBody, readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import type { AdminContext } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
import { matchListJson } from "../services/guide/match-list-json.js";
import { GUIDE_PRESETS } from "../services/guide/presets.js";
import { sourceCreateBody, sourceUpdateBody } from "../services/guide/source-body.js";
import type { GuideSource } from "../services/guide/source-store.js";
import { etag } from "../services/if-match.js";
import {
  guideMatches,
  guidePresets,
  guideRefreshAnswer,
  guideSourceDeleteAnswer,
  guideSourceList,
  guideSourceWriteAnswer,
} from "./answers.js";

const iso = (ms: number) =>
  ms === 0 ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The `source` object: the write body's fields plus whether it is a built-in preset. */
function renderSource(s: GuideSource) {
  return {
    id: s.id,
    name: s.name,
    url: s.url,
    timezone: s.timezone,
    proxy: s.proxy,
    enabled: s.enabled,
    preset: s.preset,
  };
}

export const guideSourceRoutes = defineRoutes("/v1/admin/epg", {
  presets: {
    method: "GET",
    path: "/presets",
    access: admin("read"),
    summary: "Built-in guide presets",
    tag: "guide",
    success: [200, "`{presets}`", guidePresets],
  },
  list: {
    method: "GET",
    path: "/sources",
    access: admin("read"),
    summary: "Guide sources and statuses",
    tag: "guide",
    success: [200, "`{sources, statuses}`", guideSourceList],
  },
  create: {
    method: "POST",
    path: "/sources",
    access: admin("write"),
    summary: "Create a guide source",
    tag: "guide",
    body: sourceCreateBody,
    success: [201, "`{ok, source}`", guideSourceWriteAnswer],
    errors: ["invalid_request", "conflict"],
  },
  update: {
    method: "PUT",
    path: "/sources/:id",
    access: admin("write"),
    summary: "Update a guide source (If-Match required; missing: 428)",
    tag: "guide",
    body: sourceUpdateBody,
    success: [200, "`{ok, source}`", guideSourceWriteAnswer],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  remove: {
    method: "DELETE",
    path: "/sources/:id",
    access: admin("delete"),
    summary: "Delete (or hide a preset) guide source",
    tag: "guide",
    success: [
      200,
      "`{ok, removed, hidden}`: a preset is hidden, a stored source removed",
      guideSourceDeleteAnswer,
    ],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  matches: {
    method: "GET",
    path: "/matches",
    access: admin("read"),
    summary: "Channel ↔ guide matches",
    tag: "guide",
    success: [
      200,
      "`{matches: [{channel_id, status, match?, candidates, logo_candidates}]}`; `match` and each candidate carry `reason` (exact_id | exact_name | lcn | id_name | fuzzy) and `score`",
      guideMatches,
    ],
  },
  refresh: {
    method: "POST",
    path: "/refresh",
    access: admin("refresh"),
    summary: "Refresh every enabled guide source",
    tag: "guide",
    success: [200, "`{ok, statuses}`", guideRefreshAnswer],
    errors: ["conflict"],
  },
});

/** The "Guide" admin routes (spec "Guide"). */
export function createGuideSourceRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const guide = ctx.guide;

  return routesOf(guideSourceRoutes, {
    presets: (c) => c.json({ presets: GUIDE_PRESETS.map((p) => ({ ...p, preset: true })) }),

    list: (c) =>
      c.json({
        sources: guide.sources.list().map((s) => ({
          source: renderSource(s),
          enabled: s.enabled,
          revision: s.revision,
          updated_at: iso(s.updatedAt),
        })),
        statuses: guide.statuses(),
      }),

    create: async (c) => {
      const body = await readJsonBody(c, sourceCreateBody);
      const source = await guide.sources.create(body);
      c.header("ETag", etag(source.revision));
      return c.json({ ok: true, source: renderSource(source) }, 201);
    },

    update: async (c) => {
      const id = c.req.param("id");
      if (guide.sources.get(id) === undefined)
        throw new GatewayError("not_found", `guide source ${id} not found`);
      const body = await readJsonBody(c, sourceUpdateBody);
      const before = guide.sources.get(id)!;
      const source = await guide.sources.update(id, c.req.header("if-match"), body);
      // Validators of the old address mean nothing for a new one.
      if (source.url !== before.url) await guide.forgetValidators(id);
      c.header("ETag", etag(source.revision));
      return c.json({ ok: true, source: renderSource(source) });
    },

    remove: async (c) => {
      const id = c.req.param("id");
      const { removed } = await guide.sources.remove(id, c.req.header("if-match"));
      await guide.forgetSource(id);
      return c.json({ ok: true, removed, hidden: !removed });
    },

    matches: async (c) => {
      const byChannel = await guide.matches();
      const pieces = matchListJson(ctx.channels.list(), byChannel, (ch) =>
        guide.logoCandidates(ch, byChannel),
      );
      // c.json's content type; the body streams (matchListJson).
      return c.body(piecewiseBody(pieces), 200, { "Content-Type": "application/json" });
    },

    refresh: async (c) => {
      if (!guide.hasEnabledSource())
        throw new GatewayError("conflict", "no guide source is enabled");
      const outcome = await guide.refresh();
      return c.json({ ok: outcome.ok, statuses: outcome.statuses.map(guide.statusView) });
    },
  });
}
