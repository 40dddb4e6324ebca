import type { Hono } from "hono";
import * as v from "valibot";
import { GatewayError } from "../base/errors.js";
import { defineRoutes, PUBLIC, routesOf } from "./route-table.js";
import type { AppEnv } from "./types.js";

/** Answer of a readiness check: ready, or why not. */
export type Readiness = { ready: true } | { ready: false; reason: string };

/** Liveness and readiness (spec "Public"), in both builds. */
export const healthRoutes = defineRoutes("/", {
  healthz: {
    method: "GET",
    path: "/healthz",
    access: PUBLIC,
    summary: "Liveness",
    tag: "public",
    success: [200, "`{status: ok}`", v.strictObject({ status: v.literal("ok") })],
  },
  readyz: {
    method: "GET",
    path: "/readyz",
    access: PUBLIC,
    summary: "Readiness",
    tag: "public",
    success: [200, "`{status: ready}`", v.strictObject({ status: v.literal("ready") })],
    errors: ["not_ready"],
  },
});

/**
 * `GET /healthz` (always `{status: "ok"}`) and `GET /readyz` (`{status: "ready"}`
 * or 503 `not_ready` with the reason).
 */
export function createHealthRoutes(readiness: () => Readiness | Promise<Readiness>): Hono<AppEnv> {
  return routesOf(healthRoutes, {
    healthz: (c) => c.json({ status: "ok" }),
    readyz: async (c) => {
      const r = await readiness();
      if (!r.ready) throw new GatewayError("not_ready", r.reason, { status: 503 });
      return c.json({ status: "ready" });
    },
  });
}
