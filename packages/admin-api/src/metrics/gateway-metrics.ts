import type { AppEnv } from "@svc/core/http";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Counters of the playback module that `/v1/status` and `/metrics` report. */
export interface PlaybackStats {
  readonly bytes_in: number;
  readonly bytes_out: number;
  readonly requests: number;
  readonly errors: number;
}

export interface GatewayMetrics {
  readonly registry: Registry;
  /** Counts requests by route template and status, and requests in flight. */
  readonly middleware: MiddlewareHandler<AppEnv>;
  readonly inFlight: () => number;
  /** Counts one request answered outside the middleware (the playback fast lane). */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  loginFailed(): void;
  tokenDenied(reason: string): void;
  /** One catch-up with the database started by an unknown credential (cluster mode). */
  credentialCatchUp(): void;
}

/**
 * prom-client's default metrics name three gauges `…_total`, a suffix the
 * Prometheus naming rules keep for counters (`promtool check metrics` warns:
 * "non-counter metrics should not have "_total" suffix"). Each is replaced by a
 * gauge with the same value under a name without the suffix; the per-type
 * gauges (`svc_nodejs_active_handles{type}`, …) already own the plain names.
 */
const RENAMED_GAUGES = [
  ["svc_nodejs_active_handles_total", "svc_nodejs_handles_active", "Active libuv handles"],
  ["svc_nodejs_active_requests_total", "svc_nodejs_requests_active", "Active libuv requests"],
  [
    "svc_nodejs_active_resources_total",
    "svc_nodejs_resources_active",
    "Active resources keeping the event loop alive",
  ],
] as const;

function renameTotalGauges(registry: Registry): void {
  for (const [from, to, help] of RENAMED_GAUGES) {
    const original = registry.getSingleMetric(from);
    if (original === undefined) continue;
    registry.removeSingleMetric(from);
    new Gauge({
      name: to,
      help,
      registers: [registry],
      async collect() {
        const { values } = await original.get();
        this.set(values[0]?.value ?? 0);
      },
    });
  }
}

/**
 * The Prometheus registry of the full build. Labels are route templates
 * (`/p/:token/playlist.m3u`), never raw paths, so no key or token becomes a label.
 */
export function createGatewayMetrics(sources: {
  playback: () => PlaybackStats;
  activeSessions: () => number;
  /** Source failovers by reason (extensions "Fallback sources and the slate"). */
  failovers?: () => ReadonlyMap<string, number>;
}): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_" });
  renameTotalGauges(registry);
  const requests = new Counter({
    name: "svc_http_requests_total",
    help: "HTTP requests by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "svc_http_request_duration_seconds",
    help: "HTTP request latency by method and route template",
    labelNames: ["method", "route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers: [registry],
  });
  const logins = new Counter({
    name: "svc_login_failures_total",
    help: "Failed logins (wrong pair or rate limited)",
    registers: [registry],
  });
  const denials = new Counter({
    name: "svc_api_token_denials_total",
    help: "API token requests denied, by reason",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const catchUps = new Counter({
    name: "svc_credential_catchups_total",
    help: "Catch-ups with the database started by an unknown API token or playback key (cluster mode; at most one per 100 ms)",
    registers: [registry],
  });
  // Counters mirrored from the playback module's own totals at scrape time.
  const fromPlayback = (name: string, help: string, pick: (s: PlaybackStats) => number) => {
    let seen = 0;
    return new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = pick(sources.playback());
        if (now > seen) this.inc(now - seen);
        seen = Math.max(seen, now);
      },
    });
  };
  fromPlayback("svc_playback_bytes_in_total", "Bytes read from upstreams", (s) => s.bytes_in);
  fromPlayback("svc_playback_bytes_out_total", "Media bytes sent to players", (s) => s.bytes_out);
  // The playback module counts play requests that failed upstream (5xx or cut mid-body).
  fromPlayback("svc_upstream_errors_total", "Play requests failed by an upstream", (s) => s.errors);
  const failoversSeen = new Map<string, number>();
  new Counter({
    name: "svc_failovers_total",
    help: "Source failovers of channels with fallback sources, by reason",
    labelNames: ["reason"] as const,
    registers: [registry],
    collect() {
      for (const [reason, now] of sources.failovers?.() ?? []) {
        const seen = failoversSeen.get(reason) ?? 0;
        if (now > seen) this.inc({ reason }, now - seen);
        failoversSeen.set(reason, Math.max(seen, now));
      }
    },
  });
  new Gauge({
    name: "svc_active_sessions",
    help: "Runtime media sessions",
    registers: [registry],
    collect() {
      this.set(sources.activeSessions());
    },
  });
  let inFlight = 0;
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    inFlight += 1;
    const end = latency.startTimer();
    try {
      await next();
    } finally {
      inFlight -= 1;
      const template = routePath(c, -1);
      const route = template === "*" || template === "/*" ? "(unmatched)" : template;
      end({ method: c.req.method, route });
      requests.inc({ method: c.req.method, route, status: String(c.res.status) });
      if (
        c.req.method === "POST" &&
        route === "/v1/auth/login" &&
        (c.res.status === 401 || c.res.status === 429)
      ) {
        logins.inc();
      }
    }
  };
  return {
    registry,
    middleware,
    inFlight: () => inFlight,
    observeRequest: (method, route, status, seconds) => {
      latency.observe({ method, route }, seconds);
      requests.inc({ method, route, status: String(status) });
    },
    loginFailed: () => logins.inc(),
    tokenDenied: (reason) => denials.inc({ reason }),
    credentialCatchUp: () => catchUps.inc(),
  };
}
