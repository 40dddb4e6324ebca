import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { type Logger, redactPath } from "../base/log.js";
import { requestHeader } from "./request-header.js";
import type { AppEnv, Build } from "./types.js";

/** An incoming `X-Request-ID` is echoed only when it is short and plain. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Per-request context: the request id (full build: echoed or generated and
 * returned in `X-Request-ID`; lite: internal only) and one access-log line per
 * request with route template, status and duration. The logged path never
 * carries a query string or a whole playback key.
 */
export function requestContext(build: Build, log: Logger): MiddlewareHandler<AppEnv> {
  const requestId = requestIds(build);
  return async (c, next) => {
    const started = performance.now();
    const id = requestId(build === "full" ? requestHeader(c, "x-request-id") : undefined);
    c.set("requestId", id);
    c.set("log", log);
    try {
      await next();
    } finally {
      if (build === "full") c.res.headers.set("X-Request-ID", id);
      // The one log line of a request; nothing of it is built when `info` is off.
      if (log.isLevelEnabled("info")) {
        const route = routePath(c, -1);
        logRequest(log, {
          id,
          method: c.req.method,
          route: route === "*" || route === "/*" ? "(unmatched)" : route,
          path: c.req.path,
          status: c.res.status,
          started,
        });
      }
    }
  };
}

/**
 * The request id maker of a build: the full build echoes a short, plain incoming
 * `X-Request-ID` or generates a UUID; the lite build counts (its ids stay internal).
 */
export function requestIds(build: Build): (incoming: string | undefined) => string {
  if (build === "full")
    return (incoming) =>
      incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  let counter = 0;
  return () => {
    counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
    return counter.toString(36);
  };
}

/**
 * The access-log line of one request (call only with `info` on). `path` is the request
 * path without its query; it is redacted here ({@link redactPath}).
 */
export function logRequest(
  log: Logger,
  r: { id: string; method: string; route: string; path: string; status: number; started: number },
): void {
  log.info(
    {
      reqId: r.id,
      method: r.method,
      route: r.route,
      path: redactPath(r.path),
      status: r.status,
      dur_ms: Math.round((performance.now() - r.started) * 10) / 10,
    },
    "request",
  );
}
