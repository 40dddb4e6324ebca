import { GatewayError } from "@svc/core/errors";
import { readJsonBody } from "@svc/core/http";
import { Hono } from "hono";
import type { AdminContext } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { etag } from "../http/if-match.js";
import { GUIDE_PRESETS } from "../services/guide/presets.js";
import { sourceCreateBody, sourceUpdateBody } from "../services/guide/source-body.js";
import type { GuideSource } from "../services/guide/source-store.js";

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

/** The "Guide" admin routes (spec "Guide"). */
export function createGuideSourceRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const guide = ctx.guide;

  app.get("/v1/admin/epg/presets", (c) =>
    c.json({ presets: GUIDE_PRESETS.map((p) => ({ ...p, preset: true })) }),
  );

  app.get("/v1/admin/epg/sources", (c) =>
    c.json({
      sources: guide.sources.list().map((s) => ({
        source: renderSource(s),
        enabled: s.enabled,
        revision: s.revision,
        updated_at: iso(s.updatedAt),
      })),
      statuses: guide.statuses(),
    }),
  );

  app.post("/v1/admin/epg/sources", async (c) => {
    const body = await readJsonBody(c, sourceCreateBody);
    const source = await guide.sources.create(body);
    c.header("ETag", etag(source.revision));
    return c.json({ ok: true, source: renderSource(source) }, 201);
  });

  app.put("/v1/admin/epg/sources/:id", async (c) => {
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
  });

  app.delete("/v1/admin/epg/sources/:id", async (c) => {
    const id = c.req.param("id");
    const { removed } = await guide.sources.remove(id, c.req.header("if-match"));
    await guide.forgetSource(id);
    return c.json({ ok: true, removed, hidden: !removed });
  });

  app.get("/v1/admin/epg/matches", async (c) => {
    const byChannel = await guide.matches();
    return c.json({
      matches: ctx.channels.list().map((ch) => {
        const m = byChannel.get(ch.id);
        return {
          channel_id: ch.id,
          status: m?.status ?? "unmatched",
          ...(m?.match === undefined ? {} : { match: m.match }),
          candidates: m?.candidates ?? [],
          logo_candidates: guide.logoCandidates(ch, byChannel),
        };
      }),
    });
  });

  app.post("/v1/admin/epg/refresh", async (c) => {
    if (!guide.hasEnabledSource()) throw new GatewayError("conflict", "no guide source is enabled");
    const outcome = await guide.refresh();
    return c.json({ ok: outcome.ok, statuses: outcome.statuses.map(guide.statusView) });
  });

  return app;
}
