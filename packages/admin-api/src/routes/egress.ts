import { resolveChannelSource } from "@svc/core/catalog";
import { readJsonBody } from "@svc/core/http";
import { Hono } from "hono";
import type { AdminContext } from "../admin-context.js";
import type { AdminEnv } from "../env.js";
import { etag } from "../http/if-match.js";
import { runConnectionTest, testBody } from "../services/egress/connection-test.js";
import { renderEgressDocument, renderProfile } from "../services/egress/egress-document.js";
import type { EgressState } from "../services/egress/egress-store.js";
import {
  addProfile,
  addRule,
  deleteProfile,
  deleteRule,
  replaceDocument,
  replaceProfile,
  replaceRule,
} from "../services/egress/write.js";
import { documentBody, profileBody, ruleBody } from "../services/egress/write-bodies.js";

/**
 * The egress family (spec "Egress"): the whole document, single-item writes of profiles and
 * rules (each validating the whole document under the document's `If-Match`), and the
 * connection test. Every write answers the new document with its `ETag`.
 */
export function createEgressRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const render = (s: EgressState) => renderEgressDocument(s.document, s.source, s.revision);
  const bound = (profileId: string) =>
    ctx.channels
      .list()
      .filter((c) => c.egress_mode === "profile" && c.egress_profile_id === profileId)
      .map((c) => c.id);

  app.get("/v1/admin/egress", (c) => {
    const s = ctx.egressConfig.current();
    c.header("ETag", etag(s.revision));
    return c.json(render(s));
  });

  app.put("/v1/admin/egress", async (c) => {
    const body = await readJsonBody(c, documentBody);
    const s = await replaceDocument(ctx.egressConfig, c.req.header("if-match"), body);
    c.header("ETag", etag(s.revision));
    return c.json(render(s));
  });

  app.post("/v1/admin/egress/proxies", async (c) => {
    const body = await readJsonBody(c, profileBody);
    const s = await addProfile(ctx.egressConfig, c.req.header("if-match"), body);
    c.header("ETag", etag(s.revision));
    const profile = s.document.proxies.find((p) => p.id === body.id)!;
    return c.json({ ok: true, proxy: renderProfile(profile), egress: render(s) }, 201);
  });

  app.put("/v1/admin/egress/proxies/:id", async (c) => {
    const body = await readJsonBody(c, profileBody);
    const id = c.req.param("id");
    const s = await replaceProfile(ctx.egressConfig, id, c.req.header("if-match"), body);
    c.header("ETag", etag(s.revision));
    const profile = s.document.proxies.find((p) => p.id === id)!;
    return c.json({ ok: true, proxy: renderProfile(profile), egress: render(s) });
  });

  app.delete("/v1/admin/egress/proxies/:id", async (c) => {
    const s = await deleteProfile(
      ctx.egressConfig,
      c.req.param("id"),
      c.req.header("if-match"),
      bound,
    );
    c.header("ETag", etag(s.revision));
    return c.json({ ok: true, egress: render(s) });
  });

  app.post("/v1/admin/egress/rules", async (c) => {
    const body = await readJsonBody(c, ruleBody);
    const { state, rule } = await addRule(ctx.egressConfig, c.req.header("if-match"), body);
    c.header("ETag", etag(state.revision));
    return c.json({ ok: true, rule, egress: render(state) }, 201);
  });

  app.put("/v1/admin/egress/rules/:id", async (c) => {
    const body = await readJsonBody(c, ruleBody);
    const id = c.req.param("id");
    const s = await replaceRule(ctx.egressConfig, id, c.req.header("if-match"), body);
    c.header("ETag", etag(s.revision));
    return c.json({ ok: true, rule: s.document.rules.find((r) => r.id === id), egress: render(s) });
  });

  app.delete("/v1/admin/egress/rules/:id", async (c) => {
    const s = await deleteRule(ctx.egressConfig, c.req.param("id"), c.req.header("if-match"));
    c.header("ETag", etag(s.revision));
    return c.json({ ok: true, egress: render(s) });
  });

  app.post("/v1/admin/egress/test", async (c) => {
    const body = await readJsonBody(c, testBody);
    const result = await runConnectionTest(
      {
        egress: ctx.egress,
        stored: ctx.egressConfig.current().document,
        minKbps: ctx.config.egress.min_test_kbps,
        channel: (id) => {
          const ch = ctx.channels.get(id);
          return ch === undefined ? undefined : { source: resolveChannelSource(ch, ctx.channels) };
        },
      },
      body,
    );
    return c.json(result);
  });

  return app;
}
