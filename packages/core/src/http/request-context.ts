import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { type Logger, redactPath } from "../log.js";
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
  let counter = 0;
  return async (c, next) => {
    const started = performance.now();
    let id: string;
    if (build === "full") {
      const incoming = requestHeader(c, "x-request-id");
      id = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    } else {
      counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
      id = counter.toString(36);
    }
    c.set("requestId", id);
    c.set("log", log);
    try {
      await next();
    } finally {
      if (build === "full") c.res.headers.set("X-Request-ID", id);
      // The one log line of a request; nothing of it is built when `info` is off.
      if (log.isLevelEnabled("info")) {
        const route = routePath(c, -1);
        log.info(
          {
            reqId: id,
            method: c.req.method,
            route: route === "*" || route === "/*" ? "(unmatched)" : route,
            path: redactPath(c.req.path),
            status: c.res.status,
            dur_ms: Math.round((performance.now() - started) * 10) / 10,
          },
          "request",
        );
      }
    }
  };
}
