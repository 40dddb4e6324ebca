import { Hono } from "hono";
import { GatewayError } from "../errors.js";
import type { AppEnv } from "./types.js";

/** Answer of a readiness check: ready, or why not. */
export type Readiness = { ready: true } | { ready: false; reason: string };

/**
 * `GET /healthz` (always `{status: "ok"}`) and `GET /readyz` (`{status: "ready"}`
 * or 503 `not_ready` with the reason).
 */
export function createHealthRoutes(readiness: () => Readiness | Promise<Readiness>): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const r = await readiness();
    if (!r.ready) throw new GatewayError("not_ready", r.reason, { status: 503 });
    return c.json({ status: "ready" });
  });
  return app;
}
