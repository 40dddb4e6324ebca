import type { AppEnv } from "@svc/core/http";
import { Hono } from "hono";
import type { GatewayMetrics } from "../metrics/gateway-metrics.js";

/** `GET /metrics`: Prometheus text format 0.0.4 (registered only when `observe.enabled`). */
export function createMetricsRoute(metrics: GatewayMetrics): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/metrics", async (c) =>
    c.body(await metrics.registry.metrics(), 200, { "Content-Type": "text/plain; version=0.0.4" }),
  );
  return app;
}
