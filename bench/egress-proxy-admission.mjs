// Latency of one request through the ffmpeg egress proxy, whose admission check reads
// /proc/net/tcp and the admitted pids' fd tables for every new connection, against the
// same request straight to the origin (the reference), with N idle TCP connections open
// to make /proc/net/tcp as long as a busy gateway's. Each request opens a new connection,
// as ffmpeg does (`Connection: close`). Loopback only. Needs a build.
//
//   node bench/egress-proxy-admission.mjs [--idle 2000] [--requests 500]
import { once } from "node:events";
import { createServer, request } from "node:http";
import { connect, createServer as createTcpServer } from "node:net";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { createEgressProxy } = await import(join(root, "packages/core/dist/egress/index.js"));

const opt = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const idle = opt("idle", 2000);
const requests = opt("requests", 500);

const body = Buffer.alloc(16 * 1024, 7);
const origin = createServer((_req, res) =>
  res.writeHead(200, { "content-length": body.length }).end(body),
);
origin.listen(0, "127.0.0.1");
await once(origin, "listening");
const originPort = origin.address().port;

// Idle connections: each is two rows of /proc/net/tcp (both ends are on this machine).
const sink = createTcpServer((s) => s.on("error", () => undefined));
sink.listen(0, "127.0.0.1");
await once(sink, "listening");
const held = [];
for (let i = 0; i < idle; i++) {
  const s = connect(sink.address().port, "127.0.0.1");
  s.on("error", () => undefined);
  held.push(s);
  if (i % 200 === 199) await once(s, "connect");
}

const proxy = await createEgressProxy({
  allowedHosts: ["127.0.0.1"],
  timeouts: { connectMs: 2_000, firstByteMs: 10_000, idleMs: 10_000 },
});
proxy.admit(process.pid, { headers: { "User-Agent": "bench/1" } });

function get(port, path) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      res.once("end", () =>
        res.statusCode === 200
          ? resolve(performance.now() - t0)
          : reject(new Error(`${res.statusCode}`)),
      );
    });
    req.once("error", reject);
    req.end();
  });
}

async function measure(label, port, path) {
  const ms = [];
  for (let i = 0; i < requests; i++) ms.push(await get(port, path));
  ms.sort((a, b) => a - b);
  const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(2);
  console.log(`${label.padEnd(24)} p50 ${q(0.5)} ms  p99 ${q(0.99)} ms  (${requests} requests)`);
}

console.log(`idle TCP connections: ${idle}`);
const target = `http://127.0.0.1:${originPort}/seg.m4s`;
for (let round = 0; round < 2; round++) {
  await measure("origin (reference)", originPort, "/seg.m4s");
  await measure("through the proxy", proxy.port, target);
}
for (const s of held) s.destroy();
await proxy.close();
origin.close();
sink.close();
