import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../errors.js";
import type { AppEnv } from "./types.js";

/**
 * The import endpoints' ceiling is this multiple of `max_body_bytes` (spec "Limits" leaves
 * the multiplier open; docs/m3u.md): 32 MiB by default, room for a 40,000-channel playlist.
 */
export const IMPORT_BODY_MULTIPLIER = 32;
const LARGE_BODY_PATHS = new Set(["/v1/admin/import/m3u"]);

/**
 * `security.max_body_bytes`, enforced while the body is read. A declared
 * `Content-Length` over the ceiling is refused before reading; a chunked body
 * is read up to the ceiling and handed on as a fresh Request. A request with
 * neither header has no body (RFC 9112 6.3), so nothing is read.
 *
 * hono's `bodyLimit` re-wraps `c.req.raw` with `new Request(raw, …)`, which
 * the node-server's lightweight request object (no global override) cannot be
 * fed to, so every body-less POST failed with a 500.
 */
export function bodyCeiling(limit: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () =>
    new GatewayError("invalid_request", "request body too large", { status: 413 });
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const maxBytes = LARGE_BODY_PATHS.has(c.req.path) ? limit * IMPORT_BODY_MULTIPLIER : limit;
    const chunked = c.req.raw.headers.has("transfer-encoding");
    const length = c.req.raw.headers.get("content-length");
    if (!chunked) {
      if (length !== null && Number.parseInt(length, 10) > maxBytes) throw tooLarge();
      return next();
    }
    const body = c.req.raw.body;
    if (body === null) return next();
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
    const headers = new Headers(c.req.raw.headers);
    headers.delete("transfer-encoding");
    headers.set("content-length", String(size));
    c.req.raw = new Request(c.req.url, { method, headers, body: Buffer.concat(chunks) });
    return next();
  };
}
