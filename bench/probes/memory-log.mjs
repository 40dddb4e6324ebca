// A preload for a benchmarked Node process: once a second, one line on stderr with
// `process.memoryUsage()` and the size of each V8 heap space, in MiB. Shows which part of
// an RSS growth is the young generation, the old generation, or memory outside the heap
// (`external`, `arrayBuffers`). Loopback benches only; never in production.
//
//   node bench/hls-proxy.mjs --only idle --node-args "--import=./bench/probes/memory-log.mjs" \
//     --gateway-out /tmp/gw.log            # then: grep MEM /tmp/gw.log (and /tmp/gw.log.bare)
import v8 from "node:v8";

const mib = (bytes) => (bytes / 1048576).toFixed(1);
const started = Date.now();
setInterval(() => {
  const m = process.memoryUsage();
  const spaces = v8
    .getHeapSpaceStatistics()
    .map((s) => `${s.space_name.replace(/_space$/, "")}=${mib(s.space_size)}`)
    .join(" ");
  process.stderr.write(
    `MEM t=${((Date.now() - started) / 1000).toFixed(0)}s rss=${mib(m.rss)} heapTotal=${mib(m.heapTotal)} heapUsed=${mib(m.heapUsed)} external=${mib(m.external)} arrayBuffers=${mib(m.arrayBuffers)} ${spaces}\n`,
  );
}, 1000).unref();
