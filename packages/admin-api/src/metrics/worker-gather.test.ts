import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createGatewayMetrics, type PlaybackStats } from "./gateway-metrics.js";
import {
  gatewayMetricsText,
  gatewayStatusCounters,
  gatherPart,
  type StatusPart,
  type WorkerPeers,
} from "./worker-gather.js";

/** One worker's registry and counters, as `openAdminState` builds them. */
function worker(stats: PlaybackStats) {
  const metrics = createGatewayMetrics({ playback: () => stats, activeSessions: () => 1 });
  const status = (): StatusPart => ({ ...stats, goroutines: 3 });
  return { metrics, part: (what: string) => gatherPart(what, { metrics, status }) };
}

/** The other workers' parts as the IPC carries them: through JSON. */
function peersOf(others: readonly ReturnType<typeof worker>[]): WorkerPeers {
  return {
    startedAt: 0,
    gather: async (what) => ({
      parts: await Promise.all(
        others.map(async (o) => JSON.parse(JSON.stringify(await o.part(what))) as unknown),
      ),
      missing: 0,
    }),
  };
}

const line = (text: string, name: string) =>
  text.split("\n").filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));

describe("workers: /metrics and /v1/status merged over the workers", () => {
  it("sums the counters and histograms of every worker, one series per label set", async () => {
    const a = worker({ bytes_in: 10, bytes_out: 20, requests: 2, errors: 0 });
    const b = worker({ bytes_in: 1, bytes_out: 2, requests: 3, errors: 1 });
    a.metrics.loginFailed();
    b.metrics.loginFailed();
    b.metrics.loginFailed();
    a.metrics.observeRequest("GET", "/v1/me", 200, 0.001);
    b.metrics.observeRequest("GET", "/v1/me", 200, 0.3);
    const text = await gatewayMetricsText(a.metrics, peersOf([b]));
    assert.deepEqual(line(text, "svc_login_failures_total"), ["svc_login_failures_total 3"]);
    assert.deepEqual(line(text, "svc_playback_bytes_in_total"), ["svc_playback_bytes_in_total 11"]);
    assert.deepEqual(line(text, "svc_upstream_errors_total"), ["svc_upstream_errors_total 1"]);
    assert.deepEqual(line(text, "svc_active_sessions"), ["svc_active_sessions 2"]);
    assert.deepEqual(line(text, "svc_http_requests_total"), [
      'svc_http_requests_total{method="GET",route="/v1/me",status="200"} 2',
    ]);
    assert.ok(
      line(text, "svc_http_request_duration_seconds_bucket").includes(
        'svc_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/me"} 1',
      ),
    );
    assert.deepEqual(line(text, "svc_http_request_duration_seconds_count"), [
      'svc_http_request_duration_seconds_count{method="GET",route="/v1/me"} 2',
    ]);
    assert.equal(text.match(/^# TYPE svc_http_requests_total /gm)?.length, 1);
  });

  it("keeps per-process figures a sum would invent: max fds, start time, version", async () => {
    const a = worker({ bytes_in: 0, bytes_out: 0, requests: 0, errors: 0 });
    const b = worker({ bytes_in: 0, bytes_out: 0, requests: 0, errors: 0 });
    const own = await a.metrics.registry.metrics();
    const text = await gatewayMetricsText(a.metrics, peersOf([b]));
    // One process here: the start time is the same in both, the oldest one's is kept.
    assert.deepEqual(
      line(text, "svc_process_start_time_seconds"),
      line(own, "svc_process_start_time_seconds"),
    );
    assert.equal(line(text, "svc_process_start_time_seconds").length, 1);
    assert.deepEqual(line(text, "svc_process_max_fds"), line(own, "svc_process_max_fds"));
    assert.equal(line(text, "svc_nodejs_version_info").length, 1);
  });

  it("answers with its own figures when the other workers gave nothing", async () => {
    const a = worker({ bytes_in: 5, bytes_out: 6, requests: 7, errors: 8 });
    a.metrics.loginFailed();
    const none: WorkerPeers = { startedAt: 0, gather: async () => ({ parts: [], missing: 1 }) };
    const text = await gatewayMetricsText(a.metrics, none);
    assert.deepEqual(line(text, "svc_login_failures_total"), ["svc_login_failures_total 1"]);
    const status = await gatewayStatusCounters(
      { bytes_in: 5, bytes_out: 6, requests: 7, errors: 8, goroutines: 1 },
      none,
    );
    assert.deepEqual(status, { bytes_in: 5, bytes_out: 6, requests: 7, errors: 8, goroutines: 1 });
  });

  it("sums the status counters and ignores a part of another shape", async () => {
    const b = worker({ bytes_in: 1, bytes_out: 2, requests: 3, errors: 4 });
    const peers: WorkerPeers = {
      startedAt: 0,
      gather: async (what) => ({ parts: [await b.part(what), { requests: "x" }], missing: 0 }),
    };
    const status = await gatewayStatusCounters(
      { bytes_in: 10, bytes_out: 20, requests: 30, errors: 40, goroutines: 5 },
      peers,
    );
    assert.deepEqual(status, {
      bytes_in: 11,
      bytes_out: 22,
      requests: 33,
      errors: 44,
      goroutines: 8,
    });
  });
});
