import { connect } from "node:net";

export interface SlowHeaderResult {
  readonly sockets: number;
  /** Sockets the gateway closed, and when (ms after their first header byte was sent). */
  readonly closedMs: number[];
  /** Sockets still open at the deadline. */
  readonly stillOpen: number;
  /** `/healthz` latencies measured meanwhile. */
  readonly healthMs: number[];
  readonly healthFailures: number;
}

/**
 * Slowloris: `count` sockets send a request line and then one header byte every 2 s, never
 * finishing the headers. The gateway must close each within its header timeout (10 s,
 * packages/core/src/http/server.ts) while `/healthz` keeps answering.
 */
export async function slowHeaderAttack(
  base: string,
  count: number,
  deadlineMs: number,
): Promise<SlowHeaderResult> {
  const { hostname, port } = new URL(base);
  const closedMs: number[] = [];
  const started = Date.now();
  const sockets = Array.from({ length: count }, () => {
    const s = connect(Number(port), hostname);
    s.setNoDelay(true);
    s.on("error", () => undefined);
    // Timed from the first header byte the gateway can have read (not from our connect call).
    let sent = Date.now();
    s.on("connect", () => {
      sent = Date.now();
    });
    s.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: `);
    const drip = setInterval(() => {
      if (!s.destroyed) s.write("a");
    }, 2000);
    s.on("close", () => {
      clearInterval(drip);
      closedMs.push(Date.now() - sent);
    });
    return s;
  });
  const healthMs: number[] = [];
  let healthFailures = 0;
  while (Date.now() - started < deadlineMs && closedMs.length < count) {
    const t = performance.now();
    try {
      const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5000) });
      await r.arrayBuffer();
      if (r.status !== 200) healthFailures++;
      healthMs.push(performance.now() - t);
    } catch {
      healthFailures++;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const stillOpen = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return { sockets: count, closedMs, stillOpen, healthMs, healthFailures };
}
