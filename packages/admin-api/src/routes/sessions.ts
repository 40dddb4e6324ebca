import { GatewayError } from "@svc/core/errors";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import { INSTANCE_TOKEN_HEADER } from "@svc/playback/cluster";
import type { Hono, MiddlewareHandler } from "hono";
import type { AdminContext } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { admin } from "../http/route-access.js";
import { warmupAnswer } from "./answers.js";

/**
 * Session control (spec "Sessions, probes, previews"; scope `refresh`):
 * `POST /v1/admin/channels/{id}/warmup` starts a channel's packaging session
 * (202 `{state}`), `DELETE /v1/admin/sessions/{id}` stops it (204; 404 when none ran).
 */
export const sessionRoutes = defineRoutes("/v1/admin", {
  warmup: {
    method: "POST",
    path: "/channels/:id/warmup",
    access: admin("refresh"),
    summary: "Start a packaging session",
    tag: "sessions",
    success: [202, "`{state}`", warmupAnswer],
    errors: ["not_found", "conflict"],
  },
  stop: {
    method: "DELETE",
    path: "/sessions/:id",
    access: admin("refresh"),
    summary: "Stop a runtime session",
    tag: "sessions",
    success: [204, "No body"],
    errors: ["not_found"],
  },
});

export function createSessionRoutes(ctx: AdminContext): Hono<AdminEnv> {
  return routesOf(sessionRoutes, {
    warmup: async (c) => {
      const result = await ctx.sessions.warmup(c.req.param("id"));
      if (!result.ok) throw new GatewayError(result.code, result.message);
      return c.json({ state: result.state }, 202);
    },

    stop: async (c) => {
      if (!(await ctx.sessions.stop(c.req.param("id"), c.get("requestId")))) {
        throw new GatewayError("not_found", "no running session for this channel");
      }
      return c.body(null, 204);
    },
  });
}

/** Where {@link forwardedSessionStop} is mounted: the stop route's own path. */
export const FORWARDED_STOP_PATH = `${sessionRoutes.base}${sessionRoutes.routes.stop.path}`;

/**
 * Cluster mode: the owner's side of a `DELETE /v1/admin/sessions/{id}` another instance
 * forwarded (operator contract "Cluster mode": a stop sent to any instance stops the
 * owner's session). Mounted before the credential gate: the request carries the
 * forwarding instance's session stop token instead of the admin's credential, which that
 * instance already checked. A request without the header goes on to the gate; one with a
 * bad token is 403. The stop runs here only, never forwarded again.
 */
export function forwardedSessionStop(ctx: AdminContext): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    const token = c.req.header(INSTANCE_TOKEN_HEADER);
    const stopForwarded = ctx.sessions.stopForwarded;
    // Not in cluster mode (no instance of a cluster answers here): the header means nothing.
    const clustered = ctx.clusterSessions?.self() !== undefined;
    if (
      c.req.method !== "DELETE" ||
      token === undefined ||
      stopForwarded === undefined ||
      !clustered
    )
      return next();
    const stopped = await stopForwarded(c.req.param("id") ?? "", token);
    if (stopped === undefined) throw new GatewayError("forbidden", "invalid instance token");
    if (!stopped) throw new GatewayError("not_found", "no running session for this channel");
    return c.body(null, 204);
  };
}
