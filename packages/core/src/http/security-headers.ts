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
 * The headers {@link securityHeaders} adds, for a handler that writes its answer straight
 * to the node response (the middleware runs too late for it), as node's flat
 * `[name, value, …]` list for `writeHead`, names in lower case. `requestId` is sent in the
 * full build only (spec "Lite build"); `csp` replaces the full build's policy and is added
 * in the lite build (a sandboxed `u/` answer).
 *
 * A list, not an object: the playlist fast lane's headers spread per request into an
 * object made V8's old generation grow by about 0.8 MB per scavenge at 25-30k answers a
 * second (a mark-compact every second or two, p99 above 100 ms in some runs at 200
 * connections); as a list, not at all (docs/performance.md). Node writes a list as it is.
 */
export function directResponseHeaderList(build: Build, requestId: string, csp?: string): string[] {
  const list = [
    "x-content-type-options",
    "nosniff",
    "referrer-policy",
    "no-referrer",
    "cache-control",
    DEFAULT_CACHE_CONTROL,
  ];
  if (build === "full")
    list.push(
      "x-frame-options",
      "DENY",
      "content-security-policy",
      csp ?? API_CSP,
      "x-request-id",
      requestId,
    );
  else if (csp !== undefined) list.push("content-security-policy", csp);
  return list;
}
