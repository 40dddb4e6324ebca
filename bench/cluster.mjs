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
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { promisify } from "node:util";
import { startDashLiveSource } from "../tests/dist/harness/dash-live-source.js";
import { startGateway } from "../tests/dist/harness/gateway-process.js";
import { login, requestJson } from "../tests/dist/harness/http-client.js";
import { ed25519Pair } from "../tests/dist/harness/keys.js";
import { uriLines } from "../tests/dist/harness/media-probe.js";
import { startNginxFront } from "../tests/dist/harness/nginx-front.js";
import { createDatabase } from "../tests/dist/harness/postgres-server.js";
import { ADMIN_PASSWORD, authSection } from "../tests/dist/harness/users.js";

const run = promisify(execFile);
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const DURATION = Number(arg("duration", "10"));
const CONNECTIONS = Number(arg("connections", "200"));
const CHANNELS = Number(arg("channels", "6"));
const INSTANCES = arg("instances", "1,2,3").split(",").map(Number);
const identity = { ...ed25519Pair(), signingKey: randomBytes(32).toString("hex") };

/** CPU seconds (user + system) a process used so far, from /proc. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

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

const until = async (probe, timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
};

async function cluster(n, databaseUrl) {
  const gateways = [];
  for (let i = 0; i < n; i += 1)
    gateways.push(
      await startGateway(
        "full",
        {
          auth: {
            ...authSection(),
            token_private_key: identity.privatePem,
            token_public_key: identity.publicPem,
          },
          security: {
            allowed_hosts: ["127.0.0.1"],
            play_require_auth: false,
            signing_key: identity.signingKey,
          },
          media: { idle_stop_sec: 600 },
        },
        { env: { SVC_DATABASE_URL: databaseUrl } },
      ),
    );
  const front = await startNginxFront(gateways.map((g) => g.url));
  // The recipe passes `Host: $host` (no port): the instances write URLs from the runtime
  // public_base_url, set once on one instance and seen by the others through the feed.
  const admin = await login(gateways[0].url, "admin", ADMIN_PASSWORD);
  const put = await requestJson(`${gateways[0].url}/v1/admin/settings`, {
    method: "PUT",
    token: admin,
    body: { public_base_url: front.url, access_log_retention_days: "7" },
    headers: { "if-match": '"1"' },
  });
  if (put.status !== 200) throw new Error(`settings: ${put.status} ${put.text}`);
  await until(async () => {
    for (const g of gateways) {
      const r = await requestJson(`${g.url}/v1/admin/settings`, { token: admin });
      if (r.body?.public_base_url !== front.url) return undefined;
    }
    return true;
  }, 10_000);
  return {
    gateways,
    front,
    async stop() {
      await front.stop();
      for (const g of gateways) await g.stop();
    },
  };
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
  const c = await cluster(n, databaseUrl);
  try {
    const admin = await login(c.gateways[0].url, "admin", ADMIN_PASSWORD);
    const put = await requestJson(`${c.gateways[0].url}/v1/admin/channels`, {
      token: admin,
      body: { id: "hls", title: "HLS", ingress: "hls", source_url: `${origin.url}/live.m3u8` },
    });
    if (put.status !== 201) throw new Error(`channel: ${put.status} ${put.text}`);
    const playUrl = `${c.front.url}/v1/play/hls/index.m3u8`;
    await until(async () => {
      for (const g of c.gateways)
        if ((await fetch(`${g.url}/v1/play/hls/index.m3u8`)).status !== 200) return undefined;
      return true;
    }, 10_000);
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
      await until(async () => {
        const res = await fetch(`${c.front.url}/v1/play/d${i}/index.m3u8`);
        return res.status === 200 ? true : undefined;
      }, 30_000);
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
      const master = await (await fetch(`${c.front.url}/v1/play/d0/index.m3u8`)).text();
      const g1 = new URL(uriLines(master)[0], c.front.url).searchParams.get("g");
      owner.proc.kill("SIGKILL");
      const t0 = Date.now();
      await until(async () => {
        const res = await fetch(`${c.front.url}/v1/play/d0/index.m3u8`);
        if (res.status !== 200) return undefined;
        const url = new URL(uriLines(await res.text())[0], `${c.front.url}/v1/play/d0/`);
        if (url.searchParams.get("g") === g1) return undefined;
        const media = await fetch(url);
        if (media.status !== 200) return undefined;
        const seg = await fetch(new URL(uriLines(await media.text()).at(-1), url));
        return seg.status === 200 ? true : undefined;
      }, 60_000);
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
