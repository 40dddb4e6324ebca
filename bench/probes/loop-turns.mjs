// A preload for a benchmarked Node HTTP server: every 5 s, one line on stderr with the number
// of event-loop turns and the ms from each request's `request` event to its `writeHead`
// (p50/p90/p99/max). Counting turns needs a `setImmediate` that re-arms itself, which keeps
// the loop from ever sleeping: the process then uses its core whole, even idle, and takes it
// from anything pinned beside it (nginx in bench/hls-proxy.mjs). Read only its TURNS lines;
// the throughput and CPU figures of such a run are not measurements. Loopback benches only.
//
//   node bench/hls-proxy.mjs --only "Range (streamed per request)" \
//     --node-args "--import=./bench/probes/loop-turns.mjs" --gateway-out /tmp/gw.log
//   # then: grep TURNS /tmp/gw.log /tmp/gw.log.bare-proxy
import http from "node:http";

let turn = 0;
const tick = () => {
  turn++;
  setImmediate(tick);
};
setImmediate(tick);

const since = new WeakMap(); // response -> [turn, ms] at its `request` event
const firstByte = [];
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === "request") since.set(res, [turn, performance.now()]);
  return emit.apply(this, arguments);
};
const writeHead = http.ServerResponse.prototype.writeHead;
http.ServerResponse.prototype.writeHead = function () {
  const at = since.get(this);
  if (at !== undefined) {
    since.delete(this);
    firstByte.push([turn - at[0], performance.now() - at[1]]);
  }
  return writeHead.apply(this, arguments);
};

const pick = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
setInterval(() => {
  if (firstByte.length === 0) return;
  const turns = firstByte.map((r) => r[0]).sort((a, b) => a - b);
  const ms = firstByte.map((r) => r[1]).sort((a, b) => a - b);
  process.stderr.write(
    `TURNS n=${firstByte.length} turns p50=${pick(turns, 0.5)} p90=${pick(turns, 0.9)} p99=${pick(turns, 0.99)} max=${turns.at(-1)} ms p50=${pick(ms, 0.5).toFixed(1)} p90=${pick(ms, 0.9).toFixed(1)} p99=${pick(ms, 0.99).toFixed(1)} max=${ms.at(-1).toFixed(1)}\n`,
  );
  firstByte.length = 0;
}, 5000).unref();
