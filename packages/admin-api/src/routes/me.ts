import { loginAnswer, loginResponse } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import { clientAddress, rateLimitSubject, readJsonBody } from "@svc/core/http";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import * as v from "valibot";
import { type AdminContext, principalOf } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { READER, SESSION_ONLY } from "../http/route-access.js";
import { changeCredentials } from "../services/accounts/change-credentials.js";
import { meAnswer } from "./answers.js";

export const credentialsBody = v.strictObject({
  current_password: v.pipe(v.string(), v.maxLength(1024)),
  username: v.optional(v.string()),
  new_password: v.optional(v.string()),
});

export const meRoutes = defineRoutes("/v1/me", {
  me: {
    method: "GET",
    path: "/",
    access: READER,
    summary: "Who am I",
    tag: "auth",
    success: [200, "`{username, role, channel_ids, credential, scopes}`", meAnswer],
  },
  credentials: {
    method: "PUT",
    path: "/credentials",
    access: SESSION_ONLY,
    summary: "Change username or password",
    tag: "auth",
    body: credentialsBody,
    success: [200, "Like login, with a fresh token", loginAnswer],
    errors: ["invalid_request", "current_password_invalid", "username_taken", "too_many_requests"],
  },
});

/** `GET /v1/me` and `PUT /v1/me/credentials`. */
export function createMeRoutes(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(meRoutes, {
    me: (c) => {
      const p = principalOf(c);
      if (p.kind === "api_token") {
        return c.json({
          username: p.token.name,
          role: "admin",
          channel_ids: [],
          credential: "api_token",
          scopes: p.token.scopes,
        });
      }
      return c.json({
        username: p.account.username,
        role: p.account.role,
        channel_ids: p.account.channelIds,
        credential: "session",
        scopes: null,
      });
    },

    credentials: async (c) => {
      const p = principalOf(c);
      if (p.kind !== "session")
        throw new GatewayError("session_required", "this route needs an admin login session");
      // Spec "Limits": the login limiter, keyed by username plus client IP.
      const key = `cred:${p.account.configUsername}:${rateLimitSubject(clientAddress(c))}`;
      if (!(await ctx.limiter.take(key))) {
        throw new GatewayError("too_many_requests", "too many credential changes", {
          headers: { "Retry-After": String(ctx.limiter.retryAfterSec(key)) },
        });
      }
      const body = await readJsonBody(c, credentialsBody);
      const account = await changeCredentials(
        { accounts: ctx.accounts, passwords: ctx.passwords },
        p.account,
        {
          currentPassword: body.current_password,
          username: body.username,
          newPassword: body.new_password,
        },
      );
      return c.json(await loginResponse(ctx.sessionTokens, account));
    },
  });
}
