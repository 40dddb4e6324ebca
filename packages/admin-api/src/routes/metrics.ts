import { GatewayError } from "@svc/core/errors";
import type { AppEnv } from "@svc/core/http";
import { defineRoutes, PUBLIC, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import type { GatewayMetrics } from "../metrics/gateway-metrics.js";
import { gatewayMetricsText, type WorkerPeers } from "../metrics/worker-gather.js";

export const metricsRoutes = defineRoutes("/metrics", {
  metrics: {
    method: "GET",
    path: "/",
    access: PUBLIC,
    summary: "Prometheus metrics",
    tag: "public",
    success: [200, "Prometheus text format 0.0.4", "text/plain"],
    errors: ["not_found"],
  },
});

/**
 * `GET /metrics`: Prometheus text format 0.0.4; 404 `not_found` when `observe.enabled`
 * is off (no `metrics`). Registered in both cases, so the route table stays the spec's.
 * With workers (`peers`), the merge of every worker's registry (docs/cluster.md "Workers").
 */
export function createMetricsRoute(
  metrics: GatewayMetrics | undefined,
  peers?: WorkerPeers,
): Hono<AppEnv> {
  return routesOf(metricsRoutes, {
    metrics: async (c) => {
      if (metrics === undefined) throw new GatewayError("not_found", "not found");
      return c.body(await gatewayMetricsText(metrics, peers), 200, {
        "Content-Type": "text/plain; version=0.0.4",
      });
    },
  });
}
