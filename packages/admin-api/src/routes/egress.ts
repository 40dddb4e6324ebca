import { resolveChannelSource } from "@svc/core/catalog";
import { readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import type { AdminContext } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
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
import { etag } from "../services/if-match.js";
import {
  egressConfiguration,
  egressDeleteAnswer,
  egressTestAnswer,
  proxyWriteAnswer,
  ruleWriteAnswer,
} from "./answers.js";

export const egressRoutes = defineRoutes("/v1/admin/egress", {
  read: {
    method: "GET",
    path: "/",
    access: admin("read"),
    summary: "Egress configuration",
    tag: "egress",
    success: [200, "The egress configuration resource", egressConfiguration],
  },
  replace: {
    method: "PUT",
    path: "/",
    access: admin("write"),
    summary: "Replace the egress configuration",
    tag: "egress",
    body: documentBody,
    success: [200, "The egress configuration resource", egressConfiguration],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
  addProxy: {
    method: "POST",
    path: "/proxies",
    access: admin("write"),
    summary: "Add a proxy profile",
    tag: "egress",
    body: profileBody,
    success: [
      201,
      "`{ok, proxy, egress}`: the profile and the egress configuration resource",
      proxyWriteAnswer,
    ],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
  replaceProxy: {
    method: "PUT",
    path: "/proxies/:id",
    access: admin("write"),
    summary: "Update a proxy profile",
    tag: "egress",
    body: profileBody,
    success: [
      200,
      "`{ok, proxy, egress}`: the profile and the egress configuration resource",
      proxyWriteAnswer,
    ],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  removeProxy: {
    method: "DELETE",
    path: "/proxies/:id",
    access: admin("delete"),
    summary: "Delete a proxy profile",
    tag: "egress",
    success: [200, "`{ok, egress}`: the egress configuration resource", egressDeleteAnswer],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  addRule: {
    method: "POST",
    path: "/rules",
    access: admin("write"),
    summary: "Add a routing rule",
    tag: "egress",
    body: ruleBody,
    success: [
      201,
      "`{ok, rule, egress}`: the rule and the egress configuration resource",
      ruleWriteAnswer,
    ],
    errors: ["invalid_request", "conflict"],
    ifMatch: "required",
  },
  replaceRule: {
    method: "PUT",
    path: "/rules/:id",
    access: admin("write"),
    summary: "Update a routing rule",
    tag: "egress",
    body: ruleBody,
    success: [
      200,
      "`{ok, rule, egress}`: the rule and the egress configuration resource",
      ruleWriteAnswer,
    ],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  removeRule: {
    method: "DELETE",
    path: "/rules/:id",
    access: admin("delete"),
    summary: "Delete a routing rule",
    tag: "egress",
    success: [200, "`{ok, egress}`: the egress configuration resource", egressDeleteAnswer],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  test: {
    method: "POST",
    path: "/test",
    access: admin("refresh"),
    summary: "Connection test",
    tag: "egress",
    body: testBody,
    success: [
      200,
      "`{ok, reachable, outcome, …}` (200 even when connectivity fails; a refused destination or unsaved proxy address is 403)",
      egressTestAnswer,
    ],
    errors: ["invalid_request", "forbidden"],
  },
});

/**
 * The egress family (spec "Egress"): the whole document, single-item writes of profiles and
 * rules (each validating the whole document under the document's `If-Match`), and the
 * connection test. Every write answers the new document with its `ETag`.
 */
export function createEgressRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const render = (s: EgressState) => renderEgressDocument(s.document, s.source, s.revision);
  const bound = (profileId: string) =>
    ctx.channels
      .list()
      .filter((c) => c.egress_mode === "profile" && c.egress_profile_id === profileId)
      .map((c) => c.id);

  return routesOf(egressRoutes, {
    read: (c) => {
      const s = ctx.egressConfig.current();
      c.header("ETag", etag(s.revision));
      return c.json(render(s));
    },

    replace: async (c) => {
      const body = await readJsonBody(c, documentBody);
      const s = await replaceDocument(ctx.egressConfig, c.req.header("if-match"), body);
      c.header("ETag", etag(s.revision));
      return c.json(render(s));
    },

    addProxy: async (c) => {
      const body = await readJsonBody(c, profileBody);
      const s = await addProfile(ctx.egressConfig, c.req.header("if-match"), body);
      c.header("ETag", etag(s.revision));
      const profile = s.document.proxies.find((p) => p.id === body.id)!;
      return c.json({ ok: true, proxy: renderProfile(profile), egress: render(s) }, 201);
    },

    replaceProxy: async (c) => {
      const body = await readJsonBody(c, profileBody);
      const id = c.req.param("id");
      const s = await replaceProfile(ctx.egressConfig, id, c.req.header("if-match"), body);
      c.header("ETag", etag(s.revision));
      const profile = s.document.proxies.find((p) => p.id === id)!;
      return c.json({ ok: true, proxy: renderProfile(profile), egress: render(s) });
    },

    removeProxy: async (c) => {
      const s = await deleteProfile(
        ctx.egressConfig,
        c.req.param("id"),
        c.req.header("if-match"),
        bound,
      );
      c.header("ETag", etag(s.revision));
      return c.json({ ok: true, egress: render(s) });
    },

    addRule: async (c) => {
      const body = await readJsonBody(c, ruleBody);
      const { state, rule } = await addRule(ctx.egressConfig, c.req.header("if-match"), body);
      c.header("ETag", etag(state.revision));
      return c.json({ ok: true, rule, egress: render(state) }, 201);
    },

    replaceRule: async (c) => {
      const body = await readJsonBody(c, ruleBody);
      const id = c.req.param("id");
      const s = await replaceRule(ctx.egressConfig, id, c.req.header("if-match"), body);
      c.header("ETag", etag(s.revision));
      return c.json({
        ok: true,
        rule: s.document.rules.find((r) => r.id === id),
        egress: render(s),
      });
    },

    removeRule: async (c) => {
      const s = await deleteRule(ctx.egressConfig, c.req.param("id"), c.req.header("if-match"));
      c.header("ETag", etag(s.revision));
      return c.json({ ok: true, egress: render(s) });
    },

    test: async (c) => {
      const body = await readJsonBody(c, testBody);
      const result = await runConnectionTest(
        {
          egress: ctx.egress,
          stored: ctx.egressConfig.current().document,
          minKbps: ctx.config.egress.min_test_kbps,
          channel: (id) => {
            const ch = ctx.channels.get(id);
            return ch === undefined
              ? undefined
              : { source: resolveChannelSource(ch, ctx.channels) };
          },
        },
        body,
      );
      return c.json(result);
    },
  });
}
