#!/usr/bin/env node
// The floor of `server.workers` for workers-throughput.mjs: a bare Node HTTP proxy, nothing
// but `node:cluster` with N workers on one port, each request piped from the loopback origin
// through a keep-alive agent. No gateway code: what the runtime itself gives one or two
// processes on the same load. Loopback only.
//
//   node bench/bare-cluster-proxy.mjs PORT ORIGIN_PORT WORKERS
// prints `listening` once every worker listens.
import cluster from "node:cluster";
import { Agent, createServer, request } from "node:http";

const [port, originPort, workers] = process.argv.slice(2).map(Number);

if (cluster.isPrimary) {
  let up = 0;
  cluster.on("listening", () => {
    up += 1;
    if (up === workers) console.log("listening");
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on("SIGTERM", () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill("SIGTERM");
    process.exit(0);
  });
} else {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  createServer((req, res) => {
    const up = request(
      { host: "127.0.0.1", port: originPort, path: req.url, agent },
      (originRes) => {
        res.writeHead(originRes.statusCode ?? 502, {
          "content-type": originRes.headers["content-type"] ?? "application/octet-stream",
          "content-length": originRes.headers["content-length"],
        });
        originRes.pipe(res);
      },
    );
    up.on("error", () => {
      res.statusCode = 502;
      res.end();
    });
    up.end();
  }).listen(port, "127.0.0.1");
}
