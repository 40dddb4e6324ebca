// A preload for a benchmarked Node HTTP server: every 4 s, one line on stderr per kind of
// answer — the first on its connection, and the later ones — with the time from the
// server's `request` event to `writeHead` (first byte) and to `finish` (last byte handed to
// the kernel), p50/p99/max in ms. Tells whether a tail a client measures is in the server's
// handling of an answer, and whether a connection's first request is the slow one.
// Loopback benches only; never in production.
//
//   node bench/hls-proxy.mjs --only "Range (streamed per request)" \
//     --node-args "--import=./bench/probes/answer-timing.mjs" --gateway-out /tmp/gw.log
//   # then: grep ANSWERS /tmp/gw.log /tmp/gw.log.bare-proxy
import http from "node:http";

const answers = []; // [index on the connection, ms to writeHead, ms to finish]
const started = new WeakMap();
const firstByte = new WeakMap();

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === "request") {
    const socket = req.socket;
    const index = (socket.answerIndex ?? 0) + 1;
    socket.answerIndex = index;
    const t = performance.now();
    started.set(res, t);
    res.once("finish", () =>
      answers.push([index, firstByte.get(res) ?? Number.NaN, performance.now() - t]),
    );
  }
  return emit.apply(this, arguments);
};
const writeHead = http.ServerResponse.prototype.writeHead;
http.ServerResponse.prototype.writeHead = function () {
  const t = started.get(this);
  if (t !== undefined && !firstByte.has(this)) firstByte.set(this, performance.now() - t);
  return writeHead.apply(this, arguments);
};

const pick = (sorted, p) =>
  sorted.length === 0
    ? "-"
    : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(0);
setInterval(() => {
  if (answers.length === 0) return;
  for (const [kind, first] of [
    ["first", true],
    ["later", false],
  ]) {
    const of = answers.filter((a) => (a[0] === 1) === first);
    if (of.length === 0) continue;
    const head = of.map((a) => a[1]).sort((x, y) => x - y);
    const end = of.map((a) => a[2]).sort((x, y) => x - y);
    process.stderr.write(
      `ANSWERS ${kind} n=${of.length} head p50=${pick(head, 0.5)} p99=${pick(head, 0.99)} max=${pick(head, 1)} finish p50=${pick(end, 0.5)} p99=${pick(end, 0.99)} max=${pick(end, 1)}\n`,
    );
  }
  answers.length = 0;
}, 4000).unref();
