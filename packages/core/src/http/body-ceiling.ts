import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../base/errors.js";
import { routeOf } from "./route-table.js";
import type { AppEnv } from "./types.js";

/**
 * The import endpoints' ceiling is this multiple of `max_body_bytes` (spec "Limits" leaves
 * the multiplier open; docs/m3u.md): 32 MiB by default, room for a 40,000-channel playlist.
 */
export const IMPORT_BODY_MULTIPLIER = 32;

/** The 413 of every body ceiling, in the one error shape. */
export const bodyTooLarge = () =>
  new GatewayError("invalid_request", "request body too large", { status: 413 });

/**
 * `security.max_body_bytes` for this request (32 × for the import, whose route declares
 * `bodyLimitScale`), set for the route's body
 * reader (`readRequestBody`), which enforces it on every chunk as it streams in. A declared
 * `Content-Length` over it is refused here, from the header alone.
 *
 * Nothing is read here: reading in this middleware ran before the credential gate, so an
 * anonymous client could make the gateway buffer 32 MiB per connection before its 401
 * (issue 30 item 6). Bodies are read by the route, after the gate passed.
 */
export function bodyCeiling(limit: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The route hono matched declares a larger ceiling (`bodyLimitScale`), if any.
    const maxBytes = limit * (routeOf(c)?.bodyLimitScale ?? 1);
    c.set("bodyLimit", maxBytes);
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const length = c.req.raw.headers.get("content-length");
    if (length !== null && Number.parseInt(length, 10) > maxBytes) throw bodyTooLarge();
    return next();
  };
}
