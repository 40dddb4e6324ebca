#!/usr/bin/env node
// `server.workers` (issue 36 item 2): playlist and segment throughput of the full gateway with
// 1 and 2 worker processes (and `auto`), alternated in one run, under the same load generator
// (wrk) against the same loopback origin (nginx serving static files). Per phase: requests/s
// and the gateway's CPU per 1,000 requests (utime + stime of the primary and every worker from
// /proc over the window). Loopback only.
//
//   npm run build && node bench/workers-throughput.mjs [--workers 1,2] [--rounds 2]
//     [--duration 10] [--connections 64] [--wrk-threads 1] [--bare]
//
// `--bare`: in each round, after the gateway with N workers, the same phases against
// `bare-cluster-proxy.mjs` with N workers (a bare Node proxy on node:cluster, the origin's
// files piped through): the floor of the runtime, measured the same way.
//
// On a machine whose cores the load generator shares (a 2-core VM: wrk takes most of one),
// requests/s cannot show the workers' scaling: the CPU per request can, and says what the
// workers cost. Needs nginx and wrk on PATH.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startFullGateway } from "./full-gateway.mjs";
import { writeNginxConf } from "./nginx-conf.mjs";
import { cpuSeconds } from "./proc-cpu.mjs";

const run = promisify(execFile);
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const WORKERS = arg("workers", "1,2").split(",");
const ROUNDS = Number(arg("rounds", "2"));
const DURATION = Number(arg("duration", "10"));
const CONNECTIONS = Number(arg("connections", "64"));
const WRK_THREADS = Number(arg("wrk-threads", "1"));
const BARE = process.argv.includes("--bare");

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** The process and its descendants (the primary's workers), from /proc. */
function tree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let children = "";
    try {
      children = readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, "utf8").trim();
    } catch {}
    if (children !== "") out.push(...children.split(/\s+/).map(Number));
  }
  return out;
}
const treeCpu = (pid) => tree(pid).reduce((s, p) => s + cpuSeconds(p), 0);

async function wrk(url) {
  const { stdout } = await run(
    "wrk",
    ["-t", String(WRK_THREADS), "-c", String(CONNECTIONS), "-d", `${DURATION}s`, url],
    { maxBuffer: 1 << 20 },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? "0";
  return { rps, errors: Number(errors) };
}

const work = mkdtempSync(join(tmpdir(), "svc-bench-workers-"));
const originDir = join(work, "origin");
mkdirSync(originDir);
// A live media playlist of six 2 s segments (no ENDLIST) and its 200 kB segments.
const segment = Buffer.alloc(200 * 1024, 0x47);
let playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n";
for (let i = 100; i < 106; i++) {
  writeFileSync(join(originDir, `seg${i}.ts`), segment);
  playlist += `#EXTINF:2.000,\nseg${i}.ts\n`;
}
writeFileSync(join(originDir, "live.m3u8"), playlist);
const originPort = await freePort();
const conf = writeNginxConf(join(work, "nginx"), {
  port: originPort,
  body: `location / { root ${originDir}; }`,
});
const nginx = spawn("nginx", ["-c", conf], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 500));

console.log(
  `workers-throughput ${new Date().toISOString()}: ${availableParallelism()} cores, load average ${loadavg()[0].toFixed(2)}; wrk -t${WRK_THREADS} -c${CONNECTIONS} -d${DURATION}s; workers ${WORKERS.join(", ")} x ${ROUNDS} rounds`,
);
const rows = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const workers of WORKERS) {
      const gw = await startFullGateway({
        config: {
          server: {
            listen: "127.0.0.1:0",
            workers: workers === "auto" ? "auto" : Number(workers),
          },
          security: { allowed_hosts: ["127.0.0.1"] },
          channels: [
            {
              id: "live",
              title: "live",
              ingress: "hls",
              source_url: `http://127.0.0.1:${originPort}/live.m3u8`,
            },
          ],
        },
      });
      try {
        const token = gw.auth.authorization.slice("Bearer ".length);
        const playlistUrl = `${gw.base}/v1/play/live/index.m3u8?token=${token}`;
        const body = await (await fetch(playlistUrl)).text();
        const segmentUrl = body.split("\n").find((l) => l.startsWith("http"));
        if (segmentUrl === undefined) throw new Error(`no segment in the playlist: ${body}`);
        // Warm-up: every worker compiled its paths and has the playlist.
        for (let i = 0; i < 200; i++) await (await fetch(playlistUrl)).arrayBuffer();
        for (const [phase, url] of [
          ["playlist", playlistUrl],
          ["segment 200 kB", segmentUrl],
        ]) {
          await measurePhase(round, workers, phase, url, gw.proc.pid);
        }
      } finally {
        await gw.stop();
      }
      if (BARE && workers !== "auto") await measureBare(round, Number(workers));
    }
  }
} finally {
  nginx.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}

/** One wrk phase on `url`: its row (req/s, the server tree's CPU) printed and kept. */
async function measurePhase(round, workers, phase, url, pid) {
  const load = loadavg()[0];
  const before = treeCpu(pid);
  const r = await wrk(url);
  const cpu = treeCpu(pid) - before;
  const row = {
    round,
    workers,
    phase,
    load,
    rps: r.rps,
    errors: r.errors,
    cpuMsPer1k: (cpu * 1e6) / (r.rps * DURATION),
    cores: cpu / DURATION,
  };
  rows.push(row);
  console.log(
    `round ${round} ${workers} ${phase}: ${r.rps.toFixed(0)} req/s, server ${row.cores.toFixed(2)} cores, ${row.cpuMsPer1k.toFixed(1)} ms CPU per 1,000 requests, non-2xx ${r.errors} (load before ${load.toFixed(2)})`,
  );
}

/** The same two phases against the bare node:cluster proxy with `n` workers. */
async function measureBare(round, n) {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [
      new URL("./bare-cluster-proxy.mjs", import.meta.url).pathname,
      String(port),
      String(originPort),
      String(n),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise((resolve) => proc.stdout.once("data", resolve));
  try {
    for (const [phase, path] of [
      ["playlist", "/live.m3u8"],
      ["segment 200 kB", "/seg100.ts"],
    ]) {
      const url = `http://127.0.0.1:${port}${path}`;
      for (let i = 0; i < 200; i++) await (await fetch(url)).arrayBuffer();
      await measurePhase(round, `bare ${n}`, phase, url, proc.pid);
    }
  } finally {
    proc.kill("SIGTERM");
    await new Promise((r) => proc.once("exit", r));
  }
}

console.log(
  "\n| round | workers | phase | load before | req/s | gateway cores | CPU ms per 1,000 requests |\n| --- | --- | --- | --- | --- | --- | --- |",
);
for (const r of rows)
  console.log(
    `| ${r.round} | ${r.workers} | ${r.phase} | ${r.load.toFixed(2)} | ${r.rps.toFixed(0)} | ${r.cores.toFixed(2)} | ${r.cpuMsPer1k.toFixed(1)} |`,
  );
