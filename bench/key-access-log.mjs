// Requests/s of GET /p/{token}/play/{id}/index.m3u8 with the playback access
// log on vs off, in one run: a loopback origin serves a small live playlist, two
// full gateways (log on, log off) start on temp dirs, and wrk loads each in
// alternating rounds. Loopback only. Needs a build and `wrk` on PATH.
//
//   node bench/key-access-log.mjs [--duration 8] [--connections 16] [--rounds 3]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "tests", "package.json"));
const bcrypt = require("bcrypt");
const { stringify } = require("yaml");

const opt = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const duration = opt("duration", 8);
const connections = opt("connections", 16);
const rounds = opt("rounds", 3);

const origin = spawn(process.execPath, [join(root, "bench", "playlist-origin.mjs")], {
  stdio: ["ignore", "pipe", "inherit"],
});
const originUrl = await new Promise((resolve) => {
  let out = "";
  origin.stdout.on("data", (d) => {
    out += d;
    const m = /^origin on (http:\/\/\S+)$/m.exec(out);
    if (m) resolve(m[1]);
  });
});

async function startGateway(accessLog) {
  const dir = mkdtempSync(join(tmpdir(), `svc-bench-${accessLog}-`));
  const config = join(dir, "gateway.yaml");
  writeFileSync(
    config,
    stringify({
      server: { listen: "127.0.0.1:0", data_dir: join(dir, "data") },
      auth: {
        users: [
          { username: "admin", password_hash: bcrypt.hashSync("bench-password", 4), role: "admin" },
        ],
      },
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        { id: "live", title: "Live", ingress: "hls", source_url: `${originUrl}/live/index.m3u8` },
      ],
    }),
  );
  const proc = spawn(
    process.execPath,
    [join(root, "bench", "serve-full.mjs"), "--config", config, "--access-log", accessLog],
    {
      env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  const url = await new Promise((resolve, reject) => {
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once("exit", (code) => reject(new Error(`gateway exited ${code}`)));
  });
  const post = async (path, body, token) => {
    const res = await fetch(`${url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    return res.json();
  };
  const { token: session } = await post("/v1/auth/login", {
    username: "admin",
    password: "bench-password",
  });
  const key = await post("/v1/admin/access-tokens", { name: "bench" }, session);
  const target = `${url}/p/${key.token}/play/live/index.m3u8`;
  const check = await fetch(target);
  if (check.status !== 200) throw new Error(`warm-up request answered ${check.status}`);
  await check.text();
  return {
    accessLog,
    pid: proc.pid,
    target,
    session,
    url,
    async records() {
      const body = await getFresh(`${url}/v1/admin/access-logs?limit=1`, session);
      return JSON.parse(body).access_logs[0]?.id ?? "0";
    },
    stop() {
      proc.kill("SIGTERM");
      return new Promise((r) => proc.once("exit", r)).then(() =>
        rmSync(dir, { recursive: true, force: true }),
      );
    },
  };
}

/** GET on a new connection: pooled ones went idle past the server's keep-alive while wrk ran. */
function getFresh(target, token) {
  return new Promise((resolve, reject) => {
    get(target, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d) => {
        body += d;
      });
      res.on("end", () => resolve(body));
    }).on("error", reject);
  });
}

/** CPU seconds (user + system) the process has used so far; Linux /proc, else NaN. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return Number.NaN;
  }
}

/** One measured round: req/s from wrk, and the gateway's CPU time per request (robust to a busy host). */
function wrk(gw) {
  const before = cpuSeconds(gw.pid);
  const r = wrkFor(gw.target, duration);
  const cpu = cpuSeconds(gw.pid) - before;
  return { ...r, cpuUsPerReq: (cpu * 1e6) / r.requests };
}

function wrkFor(target, seconds) {
  const r = spawnSync("wrk", ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency", target], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`wrk failed: ${r.stderr}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(r.stdout)?.[1]);
  const p99 = /\s99%\s+(\S+)/.exec(r.stdout)?.[1];
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(r.stdout)?.[1] ?? 0);
  return { rps, requests, p99, non2xx };
}

const on = await startGateway("on");
const off = await startGateway("off");
const results = { on: [], off: [] };
try {
  // Warm-up (JIT, caches), not counted.
  for (const gw of [on, off]) wrkFor(gw.target, 3);
  for (let i = 0; i < rounds; i++) {
    for (const gw of i % 2 === 0 ? [on, off] : [off, on]) {
      const r = wrk(gw);
      results[gw.accessLog].push(r);
      process.stdout.write(
        `round ${i + 1} access log ${gw.accessLog}: ${r.rps.toFixed(0)} req/s, ${r.cpuUsPerReq.toFixed(0)} µs CPU/req, p99 ${r.p99}, non-2xx ${r.non2xx}\n`,
      );
    }
  }
  process.stdout.write(
    `access records written (log on): last id ${await on.records()}; (log off): last id ${await off.records()}\n`,
  );
} finally {
  await on.stop();
  await off.stop();
  origin.kill("SIGTERM");
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mOn = median(results.on.map((r) => r.rps));
const mOff = median(results.off.map((r) => r.rps));
const cOn = median(results.on.map((r) => r.cpuUsPerReq));
const cOff = median(results.off.map((r) => r.cpuUsPerReq));
process.stdout.write(
  `median req/s: access log on ${mOn.toFixed(0)}, off ${mOff.toFixed(0)} (on/off ${((mOn / mOff) * 100).toFixed(1)} %)\n`,
);
process.stdout.write(
  `median gateway CPU per request: access log on ${cOn.toFixed(0)} µs, off ${cOff.toFixed(0)} µs (+${(cOn - cOff).toFixed(0)} µs)\n`,
);
