import { GatewayError } from "@svc/core/errors";
import type { RouteRow } from "@svc/core/route-table";
import type { ApiTokenCheck } from "./authenticate.js";
import type { ApiTokenRecord } from "./token-record.js";
import type { TokenScope } from "./token-scopes.js";

/** Spec "Admin API tokens" denial reasons, plus `invalid` for a secret that matches no token. */
export type DenialReason =
  | "invalid"
  | "revoked"
  | "expired"
  | "session_required"
  | "route_not_available"
  | "missing_scope";

export type TokenDecision =
  | { readonly allow: true; readonly token: ApiTokenRecord }
  | { readonly allow: false; readonly reason: DenialReason; readonly error: GatewayError };

const UNAUTHORIZED = {
  invalid: "invalid API token",
  revoked: "API token revoked",
  expired: "API token expired",
} as const;

const deny = (reason: DenialReason, error: GatewayError): TokenDecision => ({
  allow: false,
  reason,
  error,
});

/**
 * What an API token may do on a declared route (undefined: a path or method
 * no route declares). In order: the token's own state (401), session-only
 * rows (`session_required`), rows outside the 43-route registry
 * (`route_not_available`), then the row's scope (`missing_scope`, the same
 * code as the audit reason, like `session_required` and `route_not_available`). Scopes are independent: none implies another.
 */
export function decideTokenAccess(
  check: ApiTokenCheck,
  route: RouteRow | undefined,
): TokenDecision {
  const spec = route?.access;
  if (!check.ok) {
    return deny(check.reason, new GatewayError("unauthorized", UNAUTHORIZED[check.reason]));
  }
  if (spec?.credential === "session") {
    return deny(
      "session_required",
      new GatewayError("session_required", "this route needs an admin login session"),
    );
  }
  if (spec === undefined || spec.scope === null) {
    return deny(
      "route_not_available",
      new GatewayError("route_not_available", "route not available to API tokens"),
    );
  }
  if (!check.token.scopes.includes(spec.scope as TokenScope)) {
    return deny(
      "missing_scope",
      new GatewayError("missing_scope", `API token lacks the "${spec.scope}" scope`),
    );
  }
  return { allow: true, token: check.token };
}
