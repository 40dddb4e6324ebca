import { GatewayError } from "@svc/core/errors";
import { readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, principalOf } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { SESSION_ONLY } from "../http/route-access.js";
import {
  deleteApiToken,
  revokeApiToken,
  rotateApiToken,
  updateApiToken,
} from "../services/api-tokens/change.js";
import { createApiToken } from "../services/api-tokens/create.js";
import { MAX_EXPIRY_SEC, renderApiToken } from "../services/api-tokens/token-record.js";
import { TOKEN_SCOPES } from "../services/api-tokens/token-scopes.js";
import { apiTokenCredential, apiTokenList, auditLog, issuedApiToken, okAnswer } from "./answers.js";

const name = v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(100));
const note = v.pipe(v.string(), v.maxLength(1000));
const scopes = v.pipe(
  v.array(v.picklist(TOKEN_SCOPES, 'each scope must be "read", "write", "delete" or "refresh"')),
  v.minLength(1, "at least one scope is required"),
);

export const apiTokenCreateBody = v.strictObject({
  name,
  note: v.optional(note, ""),
  scopes,
  expires_in_sec: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be an integer"),
      v.minValue(0, "must be 0 (no expiry) or more"),
      v.maxValue(MAX_EXPIRY_SEC, "at most 10 years"),
    ),
    0,
  ),
});

export const apiTokenUpdateBody = v.strictObject({
  name: v.optional(name),
  note: v.optional(note),
  scopes: v.optional(scopes),
  enabled: v.optional(v.boolean()),
  expires_at: v.optional(v.nullable(v.string())),
});

const tag = "api-tokens";
const access = SESSION_ONLY;

/** The session-only API token routes (spec "Session-only"). */
export const apiTokenRoutes = defineRoutes("/v1/admin", {
  list: {
    method: "GET",
    path: "/api-tokens",
    access,
    summary: "List API tokens",
    tag,
    success: [200, "`{tokens, available_scopes}`", apiTokenList],
  },
  create: {
    method: "POST",
    path: "/api-tokens",
    access,
    summary: "Create an API token",
    tag,
    body: apiTokenCreateBody,
    success: [201, "`{token, credential, warning}`; plaintext shown once", issuedApiToken],
    errors: ["invalid_request"],
  },
  update: {
    method: "PUT",
    path: "/api-tokens/:id",
    access,
    summary: "Update an API token",
    tag,
    body: apiTokenUpdateBody,
    success: [200, "`{credential}`", apiTokenCredential],
    errors: ["invalid_request", "not_found", "conflict"],
    ifMatch: "required",
  },
  rotate: {
    method: "POST",
    path: "/api-tokens/:id/rotate",
    access,
    summary: "Rotate an API token",
    tag,
    success: [201, "`{token, credential, warning}`", issuedApiToken],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  revoke: {
    method: "POST",
    path: "/api-tokens/:id/revoke",
    access,
    summary: "Revoke an API token",
    tag,
    success: [200, "`{ok: true}`", okAnswer],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  remove: {
    method: "DELETE",
    path: "/api-tokens/:id",
    access,
    summary: "Delete an API token",
    tag,
    success: [204, "No body"],
    errors: ["not_found", "conflict"],
    ifMatch: "required",
  },
  logs: {
    method: "GET",
    path: "/api-token-logs",
    access,
    summary: "API token audit log (100 most recent)",
    tag,
    success: [200, "`{logs}`", auditLog],
  },
});

export function createApiTokenRoutes(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(apiTokenRoutes, {
    list: async (c) => {
      // last_used_at: this instance's queued uses, then every instance's committed ones.
      await ctx.usage.flush();
      await ctx.tokens.refreshUsage();
      return c.json({
        tokens: ctx.tokens.list().map(renderApiToken),
        available_scopes: TOKEN_SCOPES,
      });
    },

    create: async (c) => {
      const body = await readJsonBody(c, apiTokenCreateBody);
      const p = principalOf(c);
      const by = p.kind === "session" ? p.account.username : p.token.name;
      return c.json(
        await createApiToken(ctx.tokens, by, {
          name: body.name,
          note: body.note,
          scopes: body.scopes,
          expiresInSec: body.expires_in_sec,
        }),
        201,
      );
    },

    update: async (c) => {
      const body = await readJsonBody(c, apiTokenUpdateBody);
      if (body.expires_at !== undefined && body.expires_at !== null) {
        const ms = Date.parse(body.expires_at);
        if (Number.isNaN(ms))
          throw new GatewayError("invalid_request", "expires_at: must be an ISO 8601 time");
        if (ms > Date.now() + MAX_EXPIRY_SEC * 1000)
          throw new GatewayError("invalid_request", "expires_at: at most 10 years ahead");
      }
      return c.json(
        await updateApiToken(ctx.tokens, c.req.param("id"), c.req.header("if-match"), body),
      );
    },

    rotate: async (c) =>
      c.json(await rotateApiToken(ctx.tokens, c.req.param("id"), c.req.header("if-match")), 201),

    revoke: async (c) =>
      c.json(await revokeApiToken(ctx.tokens, c.req.param("id"), c.req.header("if-match"))),

    remove: async (c) => {
      await deleteApiToken(ctx.tokens, c.req.param("id"), c.req.header("if-match"));
      return c.body(null, 204);
    },

    logs: async (c) => c.json({ logs: await ctx.usage.recent() }),
  });
}
