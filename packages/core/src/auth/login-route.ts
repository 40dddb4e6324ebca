import type { Hono } from "hono";
import * as v from "valibot";
import { GatewayError } from "../base/errors.js";
import { clientAddress, rateLimitSubject } from "../http/client-address.js";
import { readJsonBody } from "../http/json-body.js";
import { defineRoutes, PUBLIC, routesOf } from "../http/route-table.js";
import type { AppEnv } from "../http/types.js";
import type { RateLimiter } from "./login-limiter.js";
import { decoyHash, type PasswordHasher } from "./passwords.js";
import type { SessionTokens } from "./session-tokens.js";
import type { Account, AccountDirectory } from "./users.js";

export const loginBody = v.strictObject({
  username: v.pipe(v.string(), v.maxLength(256)),
  password: v.pipe(v.string(), v.maxLength(1024)),
});

/** The answer of a login and of a credential change (spec "Public", "Session-only"). */
export const loginAnswer = v.strictObject({
  token: v.string(),
  /** ISO 8601 UTC. */
  expires_at: v.string(),
  username: v.string(),
  role: v.string(),
});

/** Login (spec "Public"), in both builds. */
export const loginRoutes = defineRoutes("/", {
  login: {
    method: "POST",
    path: "/v1/auth/login",
    access: PUBLIC,
    summary: "Log in",
    tag: "auth",
    body: loginBody,
    success: [200, "`{token, expires_at, username, role}`", loginAnswer],
    errors: ["invalid_request", "unauthorized", "too_many_requests"],
  },
});

/**
 * `POST /v1/auth/login` (spec "Public"): `{username, password}` with unknown
 * fields rejected; 200 `{token, expires_at, username, role}`; a wrong pair 401;
 * more than `login_rate_per_min` attempts per client IP in a minute 429, and
 * 429 too when the process's hash queue is full (many clients at once).
 */
export function createLoginRoute(deps: {
  accounts: AccountDirectory;
  tokens: SessionTokens;
  limiter: RateLimiter;
  passwords: PasswordHasher;
}): Hono<AppEnv> {
  return routesOf(loginRoutes, {
    login: async (c) => {
      const ip = clientAddress(c);
      // Spec "Limits": per client IP; an IPv6 client is its /64 (see rateLimitSubject).
      const key = `login:${rateLimitSubject(ip)}`;
      if (!(await deps.limiter.take(key))) {
        throw new GatewayError("too_many_requests", "too many login attempts", {
          headers: { "Retry-After": String(deps.limiter.retryAfterSec(key)) },
        });
      }
      const body = await readJsonBody(c, loginBody);
      const account = deps.accounts.find(body.username);
      const decoy = decoyHash(deps.accounts.list().map((a) => a.passwordHash));
      // The decoy's work queues like a real check: a full queue refuses both alike.
      const ok = await deps.passwords.verify(body.password, account?.passwordHash, decoy);
      if (!ok || account === undefined) {
        c.get("log").warn({ reqId: c.get("requestId"), remote: ip }, "login failed");
        throw new GatewayError("unauthorized", "invalid username or password");
      }
      return c.json(await loginResponse(deps.tokens, account));
    },
  });
}

/**
 * The body of a successful login, also answered by a credential change (spec:
 * "same shape as login with a fresh token"): a new session bound to the
 * account's stable key and its current credential revision.
 */
export async function loginResponse(tokens: SessionTokens, account: Account) {
  const issued = await tokens.issueSession({
    accountKey: account.configUsername,
    username: account.username,
    role: account.role,
    channels: account.channelIds,
    authRevision: account.authRevision,
  });
  return {
    token: issued.token,
    expires_at: isoSeconds(issued.expiresAt),
    username: account.username,
    role: account.role,
  };
}

/** ISO 8601 UTC without milliseconds (`2026-01-02T03:04:05Z`), as the contract writes timestamps. */
export function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}
