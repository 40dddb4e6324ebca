import { readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import type { AdminContext } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
import { etag } from "../services/if-match.js";
import { renderM3uSource } from "../services/m3u-sources/m3u-source-service.js";
import { m3uSourceCreateBody, m3uSourceUpdateBody } from "../services/m3u-sources/source-body.js";
import {
  m3uSourceAnswer,
  m3uSourceList,
  m3uSourceRefreshAnswer,
  m3uSourceStatuses,
  okAnswer,
} from "./answers.js";

const EXTENSION = "m3u_sources" as const;

/** Extensions "M3U provider sources" (docs/m3u-sources.md); scopes as for guide sources. */
export const m3uSourceRoutes = defineRoutes("/v1/admin/m3u-sources", {
  list: {
    method: "GET",
    path: "/",
    access: admin("read"),
    summary: "M3U provider sources (extension m3u_sources)",
    tag: "m3u",
    success: [200, "`{sources}`", m3uSourceList],
    extension: EXTENSION,
  },
  create: {
    method: "POST",
    path: "/",
    access: admin("write"),
    summary: "Create an M3U provider source",
    tag: "m3u",
    body: m3uSourceCreateBody,
    success: [201, "`{source}`", m3uSourceAnswer],
    errors: ["invalid_request", "conflict"],
    extension: EXTENSION,
  },
  status: {
    method: "GET",
    path: "/status",
    access: admin("read"),
    summary: "Sync status of every M3U provider source",
    tag: "m3u",
    success: [
      200,
      "`{statuses: [{source_id, last_attempt, last_success, error, created, updated, disabled, skipped}]}`",
      m3uSourceStatuses,
    ],
    extension: EXTENSION,
  },
  get: {
    method: "GET",
    path: "/:id",
    access: admin("read"),
    summary: "One M3U provider source",
    tag: "m3u",
    success: [200, "`{source}`", m3uSourceAnswer],
    errors: ["not_found"],
    extension: EXTENSION,
  },
  update: {
    method: "PUT",
    path: "/:id",
    access: admin("write"),
    summary: "Update an M3U provider source (If-Match required; missing: 428)",
    tag: "m3u",
    body: m3uSourceUpdateBody,
    success: [200, "`{source}`", m3uSourceAnswer],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
    extension: EXTENSION,
  },
  remove: {
    method: "DELETE",
    path: "/:id",
    access: admin("delete"),
    summary: "Delete an M3U provider source (its channels stay, unowned)",
    tag: "m3u",
    success: [200, "`{ok}`", okAnswer],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
    extension: EXTENSION,
  },
  refresh: {
    method: "POST",
    path: "/:id/refresh",
    access: admin("refresh"),
    summary: "Sync an M3U provider source now",
    tag: "m3u",
    success: [
      200,
      "`{ok, status}`: `ok` false when the sync failed (`status.error`)",
      m3uSourceRefreshAnswer,
    ],
    errors: ["not_found"],
    extension: EXTENSION,
  },
});

/** The sub-app; its routes are registered only with `extensions.m3u_sources`. */
export function createM3uSourceRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const sources = ctx.m3uSources;
  return routesOf(
    m3uSourceRoutes,
    {
      list: async (c) => c.json({ sources: (await sources.list()).map(renderM3uSource) }),
      create: async (c) => {
        const body = await readJsonBody(c, m3uSourceCreateBody);
        const source = await sources.create(body);
        c.header("ETag", etag(source.revision));
        return c.json({ source: renderM3uSource(source) }, 201);
      },
      status: async (c) => c.json({ statuses: await sources.statuses() }),
      get: async (c) => {
        const source = await sources.get(c.req.param("id"));
        c.header("ETag", etag(source.revision));
        return c.json({ source: renderM3uSource(source) });
      },
      update: async (c) => {
        const id = c.req.param("id");
        await sources.get(id);
        const body = await readJsonBody(c, m3uSourceUpdateBody);
        const source = await sources.update(id, c.req.header("if-match"), body);
        c.header("ETag", etag(source.revision));
        return c.json({ source: renderM3uSource(source) });
      },
      remove: async (c) => {
        await sources.remove(c.req.param("id"), c.req.header("if-match"));
        return c.json({ ok: true });
      },
      refresh: async (c) => {
        const status = await sources.refresh(c.req.param("id"));
        return c.json({ ok: status.error === null, status });
      },
    },
    ctx.config.extensions,
  );
}
