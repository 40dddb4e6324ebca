import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../base/errors.js";
import { clientAddress, isLoopbackAddress } from "./client-address.js";
import { requestHeader } from "./request-header.js";
import type { AppEnv } from "./types.js";

const HEALTH_PATHS = new Set(["/healthz", "/readyz"]);

/** Host name of a `Host` header value, lowercased, without port or IPv6 brackets. */
export function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end === -1 ? h : h.slice(1, end);
  }
  const colon = h.lastIndexOf(":");
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * Whether a `Host` header value names one of `publicHosts`; undefined when the list is
 * empty (every host is allowed).
 */
export function hostAllowed(
  publicHosts: readonly string[],
): ((hostHeader: string | undefined) => boolean) | undefined {
  if (publicHosts.length === 0) return undefined;
  const allowed = new Set(publicHosts.map((h) => hostName(h)));
  return (hostHeader) => allowed.has(hostName(hostHeader ?? ""));
}

/**
 * Spec `security.public_hosts`: when non-empty, a request whose `Host` is not
 * listed gets 403, except health checks from a loopback peer.
 */
export function hostAllowlist(
  publicHosts: readonly string[],
): MiddlewareHandler<AppEnv> | undefined {
  const allowed = hostAllowed(publicHosts);
  if (allowed === undefined) return undefined;
  return async (c, next) => {
    if (!allowed(requestHeader(c, "host"))) {
      if (!(HEALTH_PATHS.has(c.req.path) && isLoopbackAddress(clientAddress(c)))) {
        throw new GatewayError("forbidden", "host not allowed");
      }
    }
    await next();
  };
}
