import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { requestHeader } from "./request-header.js";
import type { AppEnv } from "./types.js";

/**
 * Spec `security.cors_origins`: allowed origins get CORS headers; an empty list
 * means same-origin only and no CORS header at all, so no middleware runs.
 */
export function corsPolicy(origins: readonly string[]): MiddlewareHandler<AppEnv> | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  const inner = cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"],
    allowHeaders: ["Authorization", "Content-Type", "If-Match", "X-Request-ID"],
    exposeHeaders: ["ETag", "X-Request-ID", "Content-Disposition", "Retry-After"],
    maxAge: 600,
  });
  return async (c, next) => {
    // Requests from other origins pass through without any CORS header.
    const origin = requestHeader(c, "origin");
    if (origin === undefined || !allowed.has(origin)) return next();
    return inner(c, next);
  };
}

/** Spec "Errors": OPTIONS is answered 204 at once (after CORS headers, if any). */
export const answerOptions: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "OPTIONS") return c.body(null, 204);
  return next();
};
