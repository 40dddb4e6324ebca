#!/usr/bin/env node
// HLS proxy benchmark (issue 3): the lite gateway and nginx `proxy_pass`, side by side on
// this machine, against the same loopback origin (a separate nginx serving static files),
// under the same load generator (wrk). Loopback only. Prints the ratios of the issue.
//
//   npm run build && node bench/hls-proxy.mjs [--duration 10] [--keep]
//
// Needs nginx (Debian nginx-light) and wrk on PATH. Each wrk phase runs --duration seconds.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { hashPassword } from "../packages/core/dist/auth/passwords.js";

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const DURATION = Number(arg("duration", "10"));
const work = mkdtempSync(join(tmpdir(), "svc-bench-hls-"));
const children = [];

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** Starts a child in the foreground and resolves once `ready` holds. */
function start(cmd, args, options, ready) {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  children.push(child);
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const t = setInterval(async () => {
      if (await ready(out)) {
        clearInterval(t);
        resolve(child);
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(t);
      reject(new Error(`${cmd} exited ${code}: ${out}`));
    });
  });
}

const isUp = (port) =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on("error", () => resolve(false));
    req.end();
  });

function nginxConf(name, server) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `user root;
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
  upstream origin { server 127.0.0.1:${server.originPort}; keepalive 128; }
  server {
    listen 127.0.0.1:${server.port};
    ${server.body}
  }
}
`,
  );
  return conf;
}

/** wrk run: requests/s, transfer bytes/s, p50/p99 latency (ms). */
async function wrk(url, connections, headers = []) {
  const args = ["-t2", `-c${connections}`, `-d${DURATION}s`, "--latency", "--timeout", "10s"];
  for (const h of headers) args.push("-H", h);
  const { stdout } = await run("wrk", [...args, url], { maxBuffer: 1 << 20 });
  const num = (re) => {
    const m = re.exec(stdout);
    return m === null ? Number.NaN : Number(m[1]);
  };
  const unit = (v, u) => v * ({ us: 0.001, ms: 1, s: 1000 }[u] ?? 1);
  const lat = (p) => {
    const m = new RegExp(`${p}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    return m === null ? Number.NaN : unit(Number(m[1]), m[2]);
  };
  const tm = /Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/.exec(stdout);
  const transfer =
    tm === null ? Number.NaN : Number(tm[1]) * { B: 1, KB: 1024, MB: 1 << 20, GB: 1 << 30 }[tm[2]];
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? "0";
  const timeouts = /timeout (\d+)/.exec(stdout)?.[1] ?? "0";
  return {
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    transfer,
    p50: lat(50),
    p99: lat(99),
    non2xx: Number(errors),
    timeouts: Number(timeouts),
  };
}

/** CPU seconds (user + system) used so far by `pid` and its children processes. */
function cpuSeconds(pid) {
  const ticks = (p) => {
    try {
      const f = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      return Number(f[11]) + Number(f[12]); // utime, stime (fields 14, 15)
    } catch {
      return 0;
    }
  };
  let total = ticks(pid);
  try {
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)) {
      if (child !== "") total += ticks(child);
    }
  } catch {
    // no children list: the process alone
  }
  return total / 100; // USER_HZ
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m[1]) / 1024;
}

/** GET through `agent`; resolves the status (0 when the connection failed). */
function get(url, agent) {
  return new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

async function main() {
  // Origin files: 2 MiB and 200 KiB segments, a 10-segment live playlist.
  const www = join(work, "www");
  mkdirSync(www);
  writeFileSync(join(www, "seg2m.ts"), randomBytes(2 * 1024 * 1024));
  writeFileSync(join(www, "seg200k.ts"), randomBytes(200 * 1024));
  let live = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:1000\n";
  for (let i = 0; i < 10; i++) live += `#EXTINF:2.000,\nlive/seg${1000 + i}.ts\n`;
  writeFileSync(join(www, "live.m3u8"), live);
  writeFileSync(
    join(www, "bench.m3u8"),
    "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg2m.ts\n#EXTINF:2,\nseg200k.ts\n#EXT-X-ENDLIST\n",
  );

  const originPort = await freePort();
  const nginxPort = await freePort();
  const gatewayPort = await freePort();
  const originConf = nginxConf("origin", { originPort, port: originPort, body: `root ${www};` });
  const proxyConf = nginxConf("proxy", {
    originPort,
    port: nginxPort,
    body: `location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
    location = /healthz { default_type application/json; return 200 '{"status":"ok"}'; }`,
  });
  await start("nginx", ["-c", originConf, "-p", join(work, "origin")], {}, () => isUp(originPort));
  const proxy = await start("nginx", ["-c", proxyConf, "-p", join(work, "proxy")], {}, () =>
    isUp(nginxPort),
  );

  const password = "bench-password-1";
  const config = join(work, "gateway.yaml");
  writeFileSync(
    config,
    JSON.stringify({
      server: { listen: `127.0.0.1:${gatewayPort}`, data_dir: join(work, "data") },
      auth: {
        users: [{ username: "bench", password_hash: await hashPassword(password), role: "admin" }],
      },
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        {
          id: "live",
          title: "live",
          ingress: "hls",
          source_url: `http://127.0.0.1:${originPort}/live.m3u8`,
        },
        {
          id: "bench",
          title: "bench",
          ingress: "hls",
          source_url: `http://127.0.0.1:${originPort}/bench.m3u8`,
        },
      ],
    }),
  );
  const gateway = await start(
    process.execPath,
    [join(root, "apps", "gateway-lite", "dist", "main.js"), "--config", config],
    { env: { PATH: process.env.PATH, SVC_LOG_LEVEL: "warn" } },
    (out) => out.includes("listening on"),
  );
  const gw = `http://127.0.0.1:${gatewayPort}`;
  const login = await fetch(`${gw}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", password }),
  }).then((r) => r.json());
  const token = login.token;
  const benchList = await fetch(`${gw}/v1/play/bench/index.m3u8?token=${token}`).then((r) =>
    r.text(),
  );
  const [seg2m, seg200k] = benchList.split("\n").filter((l) => l.startsWith("http"));
  const ng = `http://127.0.0.1:${nginxPort}`;
  const liveUrl = `${gw}/v1/play/live/index.m3u8?token=${token}`;
  await fetch(liveUrl).then((r) => r.text());

  const results = {};
  /** Runs a wrk phase and adds the CPU the server under test used per request (ms). */
  const measured = async (pid, load) => {
    const cpu0 = cpuSeconds(pid);
    const r = await load();
    r.cpuMsPerReq = ((cpuSeconds(pid) - cpu0) * 1000) / (r.rps * DURATION);
    return r;
  };
  const phase = async (name, a, b) => {
    process.stdout.write(`  ${name} …\n`);
    results[name] = {
      gateway: await measured(gateway.pid, a),
      nginx: await measured(proxy.pid, b),
    };
  };
  const range = ["Range: bytes=0-"];
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `wrk phases of ${DURATION} s each (loopback, ${new Date().toISOString()}, load average ${load})`,
  );
  await phase(
    "2 MiB segment, 64 conns, Range (streamed per request)",
    () => wrk(seg2m, 64, range),
    () => wrk(`${ng}/seg2m.ts`, 64, range),
  );
  await phase(
    "2 MiB segment, 64 conns, same URL (gateway fan-in)",
    () => wrk(seg2m, 64),
    () => wrk(`${ng}/seg2m.ts`, 64),
  );
  // Control: the HTTP stack alone (no playback code), to read the other p99 figures against.
  await phase(
    "control: GET /healthz, 200 conns",
    () => wrk(`${gw}/healthz`, 200),
    () => wrk(`${ng}/healthz`, 200),
  );
  await phase(
    "index.m3u8 rewrite, 200 conns",
    () => wrk(liveUrl, 200),
    () => wrk(`${ng}/live.m3u8`, 200),
  );
  await phase(
    "200 KiB segment, 64 conns, Range",
    () => wrk(seg200k, 64, range),
    () => wrk(`${ng}/seg200k.ts`, 64, range),
  );
  await phase(
    "200 KiB segment, 64 conns, same URL",
    () => wrk(seg200k, 64),
    () => wrk(`${ng}/seg200k.ts`, 64),
  );

  // RSS added per 1,000 idle keep-alive viewers, each polling the live playlist every 2 s.
  process.stdout.write("  1,000 idle keep-alive viewers …\n");
  await new Promise((r) => setTimeout(r, 3000));
  const rssBefore = rssMiB(gateway.pid);
  const agent = new Agent({ keepAlive: true, maxSockets: 1000, maxFreeSockets: 1000 });
  const viewers = Array.from({ length: 1000 }, (_, i) => i);
  let failed = 0;
  for (let round = 0; round < 3; round++) {
    const statuses = await Promise.all(viewers.map(() => get(liveUrl, agent)));
    failed += statuses.filter((st) => st !== 200).length;
    await new Promise((r) => setTimeout(r, 2000));
  }
  const open =
    Object.values(agent.sockets).flat().length + Object.values(agent.freeSockets).flat().length;
  const rssAfter = rssMiB(gateway.pid);
  agent.destroy();

  const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
  const mib = (b) => fmt(b / (1 << 20), 1);
  console.log("\n| phase | gateway | nginx | ratio / delta |\n| --- | --- | --- | --- |");
  for (const [name, { gateway: g, nginx: n }] of Object.entries(results)) {
    const seg = name.includes("segment");
    const ratio = seg ? g.transfer / n.transfer : g.rps / n.rps;
    console.log(
      `| ${name} | ${fmt(g.rps)} req/s, ${mib(g.transfer)} MiB/s, p50 ${fmt(g.p50, 2)} ms, p99 ${fmt(g.p99, 2)} ms, CPU ${fmt(g.cpuMsPerReq, 3)} ms/req${g.non2xx ? `, ${g.non2xx} non-2xx` : ""}${g.timeouts ? `, ${g.timeouts} wrk timeouts` : ""} | ${fmt(n.rps)} req/s, ${mib(n.transfer)} MiB/s, p50 ${fmt(n.p50, 2)} ms, p99 ${fmt(n.p99, 2)} ms, CPU ${fmt(n.cpuMsPerReq, 3)} ms/req${n.timeouts ? `, ${n.timeouts} wrk timeouts` : ""} | ${fmt(ratio, 2)}× ${seg ? "throughput" : "req/s"}, p99 Δ ${fmt(g.p99 - n.p99, 2)} ms |`,
    );
  }
  const s2 = results["2 MiB segment, 64 conns, Range (streamed per request)"];
  const pl = results["index.m3u8 rewrite, 200 conns"];
  const s200 = results["200 KiB segment, 64 conns, Range"];
  console.log(`\ntargets:
- 2 MiB segment throughput gateway/nginx (64 conns, streamed): ${fmt(s2.gateway.transfer / s2.nginx.transfer, 2)} (target >= 0.8)
- index.m3u8 rewrite: ${fmt(pl.gateway.rps)} req/s (target >= 10000), p99 ${fmt(pl.gateway.p99, 2)} ms (target < 10)
- 200 KiB segment p99: gateway ${fmt(s200.gateway.p99, 2)} ms vs nginx ${fmt(s200.nginx.p99, 2)} ms, delta ${fmt(s200.gateway.p99 - s200.nginx.p99, 2)} ms (target < 50)
- RSS per 1,000 idle keep-alive viewers: +${fmt(rssAfter - rssBefore, 1)} MiB (${fmt(rssBefore, 1)} -> ${fmt(rssAfter, 1)} MiB; target < 20; ${open} connections open, ${failed} of 3,000 polls failed)`);
}

try {
  await main();
} finally {
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  if (!process.argv.includes("--keep"))
    setTimeout(() => rmSync(work, { recursive: true, force: true }), 500);
}
