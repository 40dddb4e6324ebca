import type { MiddlewareHandler } from "hono";
import type { AppEnv, Build } from "./types.js";

/** Spec "Errors": the default policy for API responses; handlers may set their own. */
const DEFAULT_CACHE_CONTROL = "no-store, no-cache, must-revalidate";
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Default response headers. The full build sets the whole set of the spec; the
 * lite build only `X-Content-Type-Options`, `Referrer-Policy` and
 * `Cache-Control` (spec "Lite build"). A value a handler already set is kept.
 */
export function securityHeaders(build: Build): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    if (!h.has("Cache-Control")) h.set("Cache-Control", DEFAULT_CACHE_CONTROL);
    if (build === "full") {
      h.set("X-Frame-Options", "DENY");
      if (!h.has("Content-Security-Policy")) h.set("Content-Security-Policy", API_CSP);
    }
  };
}

/**
 * The headers {@link securityHeaders} adds, for a handler that writes a streamed
 * answer straight to the node response (the middleware runs too late for it).
 * `requestId` is sent in the full build only (spec "Lite build").
 */
export function directResponseHeaders(build: Build, requestId: string): Record<string, string> {
  const h: Record<string, string> = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": DEFAULT_CACHE_CONTROL,
  };
  if (build === "full") {
    h["x-frame-options"] = "DENY";
    h["content-security-policy"] = API_CSP;
    h["x-request-id"] = requestId;
  }
  return h;
}
