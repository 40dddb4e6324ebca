// A preload for a benchmarked Node process: every second in which the event loop waited
// longer than the threshold for a timer, one line on stderr with that second's longest
// wait and p99. Tells a tail the process made (its loop blocked: GC, a long task) from one
// made outside it (the kernel, the client). Loopback benches only; never in production.
//
//   node bench/hls-proxy.mjs … --node-args "--import=./bench/probes/event-loop-delay.mjs" \
//     --gateway-out /tmp/gw.log            # then: grep ELD /tmp/gw.log
//
// SVC_ELD_THRESHOLD_MS (default 20) sets the threshold.
import { monitorEventLoopDelay } from "node:perf_hooks";

const thresholdNs = Number(process.env.SVC_ELD_THRESHOLD_MS ?? "20") * 1e6;
const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
const started = Date.now();
setInterval(() => {
  if (histogram.max > thresholdNs) {
    const at = ((Date.now() - started) / 1000).toFixed(0);
    process.stderr.write(
      `ELD t=${at}s max=${(histogram.max / 1e6).toFixed(1)}ms p99=${(histogram.percentile(99) / 1e6).toFixed(1)}ms\n`,
    );
  }
  histogram.reset();
}, 1000).unref();
