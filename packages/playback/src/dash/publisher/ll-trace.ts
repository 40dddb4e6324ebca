import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * A debug trace of the LL-HLS answers, off by default: with `SVC_LLHLS_TRACE=1` in the
 * gateway's environment (read by core's environment module; the playback stack calls
 * {@link enableLlTrace}) every part and segment published and every media playlist
 * request (its directives, the edge when it came and when it was answered, the decision)
 * is written to stderr as one JSON line prefixed `llhls `, and once a second the event
 * loop's delay (p50, p99, max over that second). For `bench/hlsjs-latency.mjs --trace`;
 * no secret is written (the request's query is not, only its `_HLS_*` directives).
 */
let on = false;

/** Whether the trace is on (callers skip building trace fields when it is not). */
export function llTraceOn(): boolean {
  return on;
}

/** Turns the trace on for the process (once; the boot's environment asked for it). */
export function enableLlTrace(): void {
  if (on) return;
  on = true;
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const t = setInterval(() => {
    llTrace({
      ev: "loop",
      p50: Math.round(h.percentile(50) / 1e5) / 10,
      p99: Math.round(h.percentile(99) / 1e5) / 10,
      max: Math.round(h.max / 1e5) / 10,
    });
    h.reset();
  }, 1000);
  t.unref();
}

/** Writes one trace line (a no-op unless the trace is on); `t` is epoch milliseconds. */
export function llTrace(fields: Record<string, unknown>): void {
  if (!on) return;
  process.stderr.write(`llhls ${JSON.stringify({ t: Date.now(), ...fields })}\n`);
}
