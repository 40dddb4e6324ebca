import type { AccountDirectory, SessionTokens } from "@svc/core/auth";
import { bearerFromHeader, isApiTokenShape } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import { clientAddress } from "@svc/core/http";
import { type RouteRow, routeOf } from "@svc/core/route-table";
import type { Context, MiddlewareHandler } from "hono";
import type { AdminEnv } from "../context/env.js";
import { authenticateApiTokenFresh } from "../services/api-tokens/authenticate.js";
import { type DenialReason, decideTokenAccess } from "../services/api-tokens/decide-access.js";
import type { ApiTokenStore } from "../services/api-tokens/token-store.js";
import type { TokenUsageRecorder } from "../services/api-tokens/usage-recorder.js";
import { GATED_CREDENTIALS } from "./route-access.js";

export interface CredentialGateDeps {
  readonly accounts: AccountDirectory;
  readonly sessions: SessionTokens;
  readonly tokens: ApiTokenStore;
  readonly usage: TokenUsageRecorder;
  readonly onDenied?: (reason: DenialReason) => void;
  /**
   * Cluster mode: brings the credential mirrors up to the database after a miss, so a token
   * created on another instance is known here on its first use (`credential-catch-up.ts`).
   */
  readonly catchUpOnMiss?: () => Promise<void>;
}

/**
 * The one credential check of the management routes, driven by the route
 * declarations: each request is matched to the route that answers it (hono's
 * own match, {@link routeOf}), and its declaration says which credential it
 * takes and which scope an API token needs. API tokens are checked against
 * the registry of 43 scoped routes: any other route is `route_not_available`,
 * session-only routes are `session_required`. Every API-token request is
 * audited, allowed or denied. Public and playback rows pass through untouched
 * (playback checks its own credentials).
 */
export function credentialGate(deps: CredentialGateDeps): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    const spec = routeOf(c);
    const bearer = bearerFromHeader(c.req.header("authorization"));
    const managed = spec !== undefined && GATED_CREDENTIALS.has(spec.access.credential);
    if (bearer !== undefined && isApiTokenShape(bearer) && (managed || spec === undefined)) {
      return tokenRequest(deps, c, next, bearer, spec);
    }
    if (!managed) return next();
    if (bearer === undefined)
      throw new GatewayError("unauthorized", "a bearer credential is required");
    const claims = await deps.sessions.verify(bearer);
    // Spec "Credential types": preview tokens are rejected by every management endpoint.
    // Bound to the stable account key: a token never follows its username to another account.
    const account =
      claims?.kind === "session" ? deps.accounts.byConfigUsername(claims.accountKey) : undefined;
    if (
      claims === undefined ||
      account === undefined ||
      account.authRevision !== claims.authRevision
    ) {
      throw new GatewayError("unauthorized", "invalid or expired session");
    }
    if (spec.access.credential !== "reader" && account.role !== "admin") {
      throw new GatewayError("forbidden", "the admin role is required");
    }
    c.set("principal", { kind: "session", account, claims });
    return next();
  };
}

async function tokenRequest(
  deps: CredentialGateDeps,
  c: Context<AdminEnv>,
  next: () => Promise<void>,
  bearer: string,
  spec: RouteRow | undefined,
): Promise<void> {
  const check = await authenticateApiTokenFresh(deps.tokens, bearer, deps.catchUpOnMiss);
  const base = {
    tokenId: check.token?.id ?? "",
    tokenPrefix: check.token?.tokenPrefix ?? "",
    method: c.req.method,
    path: c.req.path,
    requiredScope: spec?.access.scope ?? null,
    remote: clientAddress(c),
    userAgent: (c.req.header("user-agent") ?? "").slice(0, 256),
    requestId: c.get("requestId"),
  };
  const decision = decideTokenAccess(check, spec);
  if (!decision.allow) {
    const entry = {
      ...base,
      decision: "deny" as const,
      status: decision.error.status,
      reason: decision.reason,
      createdAt: Date.now(),
    };
    // A bearer matching no token comes from anyone: recorded within a budget, then folded.
    if (check.token === undefined) deps.usage.recordUnknown(entry);
    else deps.usage.record(entry);
    deps.onDenied?.(decision.reason);
    throw decision.error;
  }
  const token = decision.token;
  c.set("principal", { kind: "api_token", token });
  await next();
  deps.usage.record({
    ...base,
    decision: "allow",
    status: c.res.status,
    reason: null,
    createdAt: Date.now(),
  });
}
