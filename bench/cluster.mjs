#!/usr/bin/env node
// Cluster scale-out benchmark (issue 15): 1, 2 and 3 full instances on one PostgreSQL
// behind nginx (the deploy/nginx-svc-cluster.conf recipe, as tests/src/harness/nginx-front.ts
// runs it), all on loopback.
//
//   npx pnpm@10.34.9 exec turbo run build
//   node bench/cluster.mjs [--duration 10] [--connections 200] [--channels 6] [--instances 1,2,3]
//
// Needs nginx, wrk, ffmpeg and the PostgreSQL 15 server binaries. Three figures:
// 1. playlist throughput: wrk through nginx on `index.m3u8` of an HLS channel (a loopback
//    origin with a 6-segment live playlist, rewritten by the gateway), per instance count,
//    and the scaling ratio against one instance;
// 2. packaged channels: --channels on-demand DASH channels of one loopback LL-DASH source,
//    each started by a playlist request through nginx; how the packagers spread over the
//    instances (leases per owner) and each instance's CPU over --duration seconds;
// 3. failover: the owner of one packaged channel is killed (SIGKILL); the time until a
//    player polling through nginx gets a playlist of the new generation and its newest
//    segment again (the contract's bound: 20 s).
// The machine has 2 cores: more instances than cores share them, so the ratio reads as
// "what the extra processes buy on this machine", not as per-node scaling.
import { execFile, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { promisify } from "node:util";
import {
  onEveryInstance,
  playableGeneration,
  startCluster,
} from "../tests/dist/harness/cluster.js";
import { startDashLiveSource } from "../tests/dist/harness/dash-live-source.js";
import { requestJson } from "../tests/dist/harness/http-client.js";
import { createDatabase } from "../tests/dist/harness/postgres-server.js";
import { until } from "../tests/dist/harness/until.js";
import { cpuSeconds } from "./proc-cpu.mjs";

const run = promisify(execFile);
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const DURATION = Number(arg("duration", "10"));
const CONNECTIONS = Number(arg("connections", "200"));
const CHANNELS = Number(arg("channels", "6"));
const INSTANCES = arg("instances", "1,2,3").split(",").map(Number);

async function wrk(url) {
  const { stdout } = await run(
    "wrk",
    ["-t2", `-c${CONNECTIONS}`, `-d${DURATION}s`, "--latency", url],
    { maxBuffer: 1 << 20 },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const ms = (label) => {
    const m = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    if (m === null) return Number.NaN;
    const v = Number(m[1]);
    return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? "0";
  return { rps, p50: ms("50"), p99: ms("99"), errors: Number(errors) };
}

function startOrigin() {
  const child = spawn(
    process.execPath,
    [new URL("./playlist-origin.mjs", import.meta.url).pathname],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (d) => {
      const m = /origin on (\S+)/.exec(d);
      if (m !== null) resolve({ url: m[1], stop: () => child.kill("SIGTERM") });
    });
  });
}

const origin = await startOrigin();
const dash = await startDashLiveSource({ heights: [360], languages: ["eng"] });
await dash.waitForSegments(3);
const rows = [];
const packaging = [];
let failover;
process.stdout.write(
  `cluster bench ${new Date().toISOString()}, load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}\n`,
);
for (const n of INSTANCES) {
  const databaseUrl = await createDatabase();
  if (databaseUrl === undefined) throw new Error("the PostgreSQL server binaries are missing");
  const c = await startCluster(n, databaseUrl, { idleStopSec: 600 });
  try {
    const { admin } = c;
    const put = await requestJson(`${c.gateways[0].url}/v1/admin/channels`, {
      token: admin,
      body: { id: "hls", title: "HLS", ingress: "hls", source_url: `${origin.url}/live.m3u8` },
    });
    if (put.status !== 201) throw new Error(`channel: ${put.status} ${put.text}`);
    const playUrl = `${c.front.url}/v1/play/hls/index.m3u8`;
    await onEveryInstance(
      "the HLS channel on every instance",
      c.gateways,
      async (g) => (await fetch(`${g.url}/v1/play/hls/index.m3u8`)).status === 200,
    );
    await wrk(playUrl); // warm-up
    const before = c.gateways.map((g) => cpuSeconds(g.proc.pid));
    const r = await wrk(playUrl);
    const cpu = c.gateways.map((g, i) => cpuSeconds(g.proc.pid) - before[i]);
    rows.push({ n, ...r, cpu });
    process.stdout.write(
      `${n} instance(s): ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, non-2xx ${r.errors}, gateway cpu-s ${cpu.map((x) => x.toFixed(1)).join("/")}\n`,
    );

    // Packaged channels: started through nginx, so round-robin decides the owners.
    for (let i = 0; i < CHANNELS; i += 1) {
      const p = await requestJson(`${c.gateways[0].url}/v1/admin/channels`, {
        token: admin,
        body: { id: `d${i}`, title: `D${i}`, ingress: "dash", source_url: dash.mpdUrl },
      });
      if (p.status !== 201) throw new Error(`dash channel: ${p.status} ${p.text}`);
    }
    await new Promise((r) => setTimeout(r, 2500));
    for (let i = 0; i < CHANNELS; i += 1)
      await until(
        `channel d${i} through nginx`,
        () => playableGeneration(c.front.url, `d${i}`, null),
        30_000,
      );
    const owned = [];
    const b2 = c.gateways.map((g) => cpuSeconds(g.proc.pid));
    await new Promise((r) => setTimeout(r, DURATION * 1000));
    const cpu2 = c.gateways.map((g, i) => (cpuSeconds(g.proc.pid) - b2[i]) / DURATION);
    for (const g of c.gateways) {
      const st = await requestJson(`${g.url}/v1/status`, { token: admin });
      owned.push(st.body.sessions.filter((s) => s.state !== "remote").length);
    }
    packaging.push({ n, owned, cpu: cpu2 });
    process.stdout.write(
      `  ${CHANNELS} packaged channels: sessions per instance ${owned.join("/")}, CPU ${cpu2.map((x) => `${(x * 100).toFixed(1)}%`).join("/")} of a core\n`,
    );

    if (n > 1 && failover === undefined) {
      // Failover: kill the owner of d0, poll through nginx as a player would.
      let owner;
      for (const g of c.gateways) {
        const st = await requestJson(`${g.url}/v1/status`, { token: admin });
        if (st.body.sessions.some((s) => s.channel_id === "d0" && s.state !== "remote")) owner = g;
      }
      const g1 = await until("d0 playing", () => playableGeneration(c.front.url, "d0", null));
      owner.proc.kill("SIGKILL");
      const t0 = Date.now();
      await until("d0 after failover", () => playableGeneration(c.front.url, "d0", g1), 60_000);
      failover = { n, ms: Date.now() - t0 };
      process.stdout.write(
        `  failover with ${n} instances: playback back after ${failover.ms} ms\n`,
      );
    }
  } finally {
    await c.stop();
  }
}
origin.stop();
await dash.stop();

const base = rows.find((r) => r.n === 1);
process.stdout.write(
  "\n| instances | req/s | × one instance | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|---|\n",
);
for (const r of rows)
  process.stdout.write(
    `| ${r.n} | ${r.rps.toFixed(0)} | ${base ? (r.rps / base.rps).toFixed(2) : "-"} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} |\n`,
  );
process.stdout.write(
  "\n| instances | packagers per instance | CPU per instance (% of a core) |\n|---|---|---|\n",
);
for (const p of packaging)
  process.stdout.write(
    `| ${p.n} | ${p.owned.join(" / ")} | ${p.cpu.map((x) => (x * 100).toFixed(1)).join(" / ")} |\n`,
  );
if (failover !== undefined)
  process.stdout.write(
    `\nfailover (${failover.n} instances, owner SIGKILLed): ${failover.ms} ms\n`,
  );
process.exit(0);
