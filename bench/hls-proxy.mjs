#!/usr/bin/env node
import { execFile, spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import {
  appendFileSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { hashPassword } from "../packages/core/dist/auth/passwords.js";
import { createSessionTokens } from "../packages/core/dist/auth/session-tokens.js";
import { GATEWAY_NODE_FLAGS } from "../tests/dist/harness/gateway-process.js";
// HLS proxy benchmark (issues 3 and 13): the lite gateway and two nginx references
// (`proxy_pass`, and `proxy_cache` + `proxy_cache_lock`, the caching shield operators put in
// front of an origin), side by side on this machine, against the same loopback origin (a
// separate nginx serving static files), under the same load generator (wrk). Loopback only.
//
//   npm run build && node bench/hls-proxy.mjs [--duration 10] [--tokens 200] [--viewers 1000]
//                                             [--only <phase substring>[|<another>]] [--cpu N] [--keep]
//                                             [--warmup 3] [--gateway-out FILE] [--log-level warn]
//                                             [--node-args "--cpu-prof --cpu-prof-dir=DIR"]
//                                             [--idle-pattern burst|spread] [--wrk-out FILE]
//
// Needs nginx (Debian nginx-light) and wrk on PATH. Each wrk phase runs --duration seconds.
// `--cpu N` pins the gateway and both nginx references to core N (taskset), as the issue asks.
import { writeNginxConf } from "./nginx-conf.mjs";

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const DURATION = Number(arg("duration", "10"));
const TOKENS = Number(arg("tokens", "200"));
const VIEWERS = Number(arg("viewers", "1000"));
/** Phases whose name contains any of the `|`-separated texts (all phases when empty). */
const ONLY = arg("only", "").split("|");
const selected = (name) => ONLY.some((text) => name.includes(text));
/**
 * How the idle viewers' polls fall within each second: `burst` (all VIEWERS at the same
 * instant, the worst case for the heap) or `spread` (viewer i polls at i/VIEWERS of every
 * second, as players that started at different moments do).
 */
const IDLE_PATTERN = arg("idle-pattern", "burst");
if (IDLE_PATTERN !== "burst" && IDLE_PATTERN !== "spread")
  throw new Error(`--idle-pattern is burst or spread, not ${IDLE_PATTERN}`);
/**
 * Seconds of the same load, unmeasured, before each measured run, for the gateway and each
 * nginx alike: a cold V8 serves its first requests from the interpreter, and with 200
 * connections the requests queued then are the whole p99 of a 10 s run (docs/performance.md).
 */
const WARMUP = Number(arg("warmup", "3"));
const CPU = arg("cpu", "");
/** The other cores, for wrk, when --cpu pins the servers (empty: wrk unpinned). */
const WRK_CORES =
  CPU === ""
    ? ""
    : Array.from({ length: availableParallelism() }, (_, i) => i)
        .filter((i) => String(i) !== CPU)
        .join(",");
/** Where the gateway's output goes (the bare idle server's to FILE.bare); "" drops it. */
const GATEWAY_OUT = arg("gateway-out", "");
/** Appends every wrk run's own output (latency distribution, socket errors) to FILE. */
const WRK_OUT = arg("wrk-out", "");
/** The gateway's log level; "info" writes one access-log line per request (with --gateway-out). */
const LOG_LEVEL = arg("log-level", "warn");
/**
 * Node flags for the gateway and the bare Node references: the ones every launcher gives the
 * gateway (scripts/gateway-node-flags.json, docs/deploy.md "Node flags"), then --node-args,
 * e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" or "--trace-gc" (a later flag wins, so
 * "--memory-reducer" measures without the launchers' "--no-memory-reducer").
 */
const NODE_ARGS = [
  ...GATEWAY_NODE_FLAGS,
  ...arg("node-args", "")
    .split(" ")
    .filter((a) => a !== ""),
];
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
function start(cmd, args, options, ready, pinned = false) {
  const argv = pinned && CPU !== "" ? ["taskset", "-c", CPU, cmd, ...args] : [cmd, ...args];
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], ...options });
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

/**
 * A Node process on the gateway's core, with the gateway's --node-args, running `script`
 * (given `PORT`, it listens on 127.0.0.1 and prints "listening"). Its output goes to
 * `outFile` (dropped without --gateway-out).
 */
async function startNodeServer(script, outFile) {
  const port = await freePort();
  const child = await start(
    process.execPath,
    [...NODE_ARGS, "-e", `const PORT = ${port};\n${script}`],
    {},
    (out) => out.includes("listening"),
    true,
  );
  keepOutput(child, GATEWAY_OUT === "" ? "" : outFile);
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * A bare node:http server answering every request with the bytes of `bodyFile` held in
 * memory, as `type`: the floor of any Node server for the playlist phases and the idle
 * viewers, and for the same-URL segment phases (a Node server that already holds the segment).
 */
function startBare(bodyFile, outFile, type = "application/vnd.apple.mpegurl") {
  return startNodeServer(
    `const b = require("fs").readFileSync(${JSON.stringify(bodyFile)});
require("http").createServer((q, r) => { r.writeHead(200, { "content-type": ${JSON.stringify(type)}, "content-length": b.length }); r.end(b); })
  .listen(PORT, "127.0.0.1", () => console.log("listening"));`,
    outFile,
  );
}

/**
 * A bare Node proxy: node:http in, node:http with a keep-alive agent out to the origin,
 * `Range` passed on, the body relayed the way the gateway's `pipeBody` does it (every chunk
 * that arrived in one event-loop turn in one corked write; the upstream paused while the
 * client's socket is full), which costs less than `pipe`'s write per chunk. The floor of any
 * Node proxy for the `Range` segment phases.
 */
function startBareProxy(originPort, outFile) {
  return startNodeServer(
    `const http = require("http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const pass = ["content-type", "content-length", "content-range", "accept-ranges"];
http.createServer((q, r) => {
  const headers = q.headers.range === undefined ? {} : { range: q.headers.range };
  const up = http.request({ host: "127.0.0.1", port: ${originPort}, path: q.url, headers, agent }, (u) => {
    const h = {};
    for (const k of pass) if (u.headers[k] !== undefined) h[k] = u.headers[k];
    r.writeHead(u.statusCode, h);
    const pending = [];
    let queued = false;
    const flush = () => {
      queued = false;
      if (pending.length === 0 || r.destroyed) return;
      let room = true;
      r.cork();
      for (const c of pending) room = r.write(c);
      pending.length = 0;
      r.uncork();
      if (!room) { u.pause(); r.once("drain", () => u.resume()); }
    };
    u.on("data", (c) => { pending.push(c); if (!queued) { queued = true; setImmediate(flush); } });
    u.on("end", () => { flush(); r.end(); });
  });
  up.on("error", () => r.destroy());
  r.on("close", () => up.destroy());
  up.end();
}).listen(PORT, "127.0.0.1", () => console.log("listening"));`,
    outFile,
  );
}

/** `start()` run on the first call only; every call gets its one promise. */
const once = (start) => {
  let started;
  return () => {
    started ??= start();
    return started;
  };
};

/** Writes what `child` prints (stdout and stderr) to `file`; "" drops it. */
function keepOutput(child, file) {
  if (file === "") return;
  const sink = createWriteStream(file);
  child.stdout.pipe(sink);
  child.stderr.pipe(sink);
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

const nginxConf = (name, server) => writeNginxConf(join(work, name), server);

/**
 * wrk's `done` hook printing the tail past p99 (wrk's `--latency` stops there): a script with
 * no `request` or `response` function keeps wrk on its static request, at no cost per request.
 */
const TAIL_LUA = `
done = function(summary, latency, requests)
  local s = "TAIL"
  for _, p in ipairs({98, 99.5, 99.9}) do
    s = s .. string.format(" p%s=%.3f", p, latency:percentile(p) / 1000)
  end
  print(s .. string.format(" max=%.3f", latency.max / 1000))
end
`;
/** `script` (or nothing) with {@link TAIL_LUA} appended, written once next to the run's files. */
const tailScripts = new Map();
function withTail(script) {
  const key = script ?? "";
  let file = tailScripts.get(key);
  if (file === undefined) {
    file = join(work, `tail-${tailScripts.size}.lua`);
    writeFileSync(file, `${script === undefined ? "" : readFileSync(script, "utf8")}\n${TAIL_LUA}`);
    tailScripts.set(key, file);
  }
  return file;
}

/**
 * wrk run: requests/s, transfer bytes/s, latency (ms) at p50, p98, p99, p99.5, p99.9 and its
 * max. `script`: a wrk Lua file.
 */
async function wrk(url, connections, headers = [], script = undefined, seconds = DURATION) {
  const args = ["-t2", `-c${connections}`, `-d${seconds}s`, "--latency", "--timeout", "10s"];
  for (const h of headers) args.push("-H", h);
  args.push("-s", withTail(script));
  // With --cpu N the load generator keeps off core N: wrk's threads on the server's core
  // would take its CPU and put the generator's own scheduling into every latency figure.
  const { stdout } = await (WRK_CORES === ""
    ? run("wrk", [...args, url], { maxBuffer: 1 << 20 })
    : run("taskset", ["-c", WRK_CORES, "wrk", ...args, url], { maxBuffer: 1 << 20 }));
  if (WRK_OUT !== "")
    appendFileSync(
      WRK_OUT,
      `# ${new Date().toISOString()} wrk ${args.join(" ")} ${url}\n${stdout}\n`,
    );
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
  const tail = (name) => num(new RegExp(`TAIL.* ${name}=([\\d.]+)`));
  return {
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    transfer,
    p50: lat(50),
    p98: tail("p98"),
    p99: lat(99),
    p995: tail("p99.5"),
    p999: tail("p99.9"),
    max: tail("max"),
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
  const cachePort = await freePort();
  const cacheConf = nginxConf("cache", {
    originPort,
    port: cachePort,
    http: `proxy_cache_path ${join(work, "cache", "store")} levels=1:2 keys_zone=seg:10m max_size=1g inactive=60s use_temp_path=off;`,
    body: `location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_cache seg; proxy_cache_valid 200 206 10s; proxy_cache_lock on; proxy_cache_lock_timeout 10s; }`,
  });
  await start("nginx", ["-c", originConf, "-p", join(work, "origin")], {}, () => isUp(originPort));
  const proxy = await start(
    "nginx",
    ["-c", proxyConf, "-p", join(work, "proxy")],
    {},
    () => isUp(nginxPort),
    true,
  );
  const cache = await start(
    "nginx",
    ["-c", cacheConf, "-p", join(work, "cache")],
    {},
    () => isUp(cachePort),
    true,
  );
  // Session tokens are signed here with the key the gateway is configured with, as a
  // login would sign them: one per viewer, so the gateway sees TOKENS distinct credentials.
  const signing = generateKeyPairSync("ed25519");
  const privatePem = signing.privateKey.export({ format: "pem", type: "pkcs8" });

  const password = "bench-password-1";
  const config = join(work, "gateway.yaml");
  writeFileSync(
    config,
    JSON.stringify({
      server: { listen: `127.0.0.1:${gatewayPort}`, data_dir: join(work, "data") },
      auth: {
        users: [{ username: "bench", password_hash: await hashPassword(password), role: "admin" }],
        token_private_key: privatePem,
        token_issuer: "bench",
        token_audience: "bench",
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
    [...NODE_ARGS, join(root, "apps", "gateway-lite", "dist", "main.js"), "--config", config],
    { env: { PATH: process.env.PATH, SVC_LOG_LEVEL: LOG_LEVEL } },
    (out) => out.includes("listening on"),
    true,
  );
  // --gateway-out FILE: what the gateway prints (with --node-args --trace-gc, its collections).
  keepOutput(gateway, GATEWAY_OUT);
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
  const nc = `http://127.0.0.1:${cachePort}`;
  const liveUrl = `${gw}/v1/play/live/index.m3u8?token=${token}`;
  const liveBody = join(work, "live-playlist.m3u8");
  writeFileSync(liveBody, Buffer.from(await (await fetch(liveUrl)).arrayBuffer()));
  const issuer = createSessionTokens({
    keys: { privateKey: signing.privateKey, publicKey: signing.publicKey, source: "inline" },
    issuer: "bench",
    audience: "bench",
    ttlHours: 24,
  });
  const viewerTokens = [];
  for (let i = 0; i < TOKENS; i++) {
    const t = await issuer.issueSession({
      accountKey: "bench",
      username: "bench",
      role: "admin",
      channels: [],
      authRevision: 0,
    });
    viewerTokens.push(t.token);
  }
  // One wrk request path per token, taken in turn: every viewer polls with its own token.
  const tokensLua = join(work, "tokens.lua");
  writeFileSync(
    tokensLua,
    `local paths = {${viewerTokens.map((t) => `"/v1/play/live/index.m3u8?token=${t}"`).join(",")}}
local i = math.random(#paths)
request = function()
  i = i % #paths + 1
  return wrk.format(nil, paths[i])
end
`,
  );
  const tokenCheck = await fetch(`${gw}/v1/play/live/index.m3u8?token=${viewerTokens[0]}`);
  if (tokenCheck.status !== 200) throw new Error(`a signed viewer token got ${tokenCheck.status}`);
  await tokenCheck.text();

  const results = {};
  /** Runs a wrk phase and adds the CPU the server under test used per request (ms). */
  const measured = async (pid, load) => {
    if (WARMUP > 0) await load(WARMUP);
    const cpu0 = cpuSeconds(pid);
    const r = await load(DURATION);
    r.cpuMsPerReq = ((cpuSeconds(pid) - cpu0) * 1000) / (r.rps * DURATION);
    return r;
  };
  /**
   * `c`: the caching nginx, for the phases where the gateway's fan-in competes with a cache;
   * `d`: a bare Node server ({@link bareRef}): for the playlist phases one answering the
   * same bytes, for the `Range` segment phases a bare proxy to the same origin, for the
   * same-URL segment phases one holding the segment in memory.
   */
  const phase = async (name, a, b, c = undefined, d = undefined) => {
    if (!selected(name)) return;
    process.stdout.write(`  ${name} …\n`);
    results[name] = {
      gateway: await measured(gateway.pid, a),
      nginx: await measured(proxy.pid, b),
      ...(c === undefined ? {} : { cache: await measured(cache.pid, c) }),
      ...(d === undefined ? {} : { bare: await measuredBare(d) }),
    };
  };
  /** Started on first use, so an `--only` run without their phases does not start them. */
  const bareServer = once(() => startBare(liveBody, `${GATEWAY_OUT}.bare-playlist`));
  const bareProxy = once(() => startBareProxy(originPort, `${GATEWAY_OUT}.bare-proxy`));
  /** A bare server holding the origin's file `name` in memory. */
  const bareHolding = (name) =>
    once(() => startBare(join(www, name), `${GATEWAY_OUT}.bare-${name}`, "video/mp2t"));
  /** The same wrk load as the gateway's, against a bare server started on first use. */
  const bareRef = (server, path, connections, headers = [], script = undefined) => ({
    server,
    path,
    connections,
    headers,
    script,
  });
  const measuredBare = async (d) => {
    const srv = await d.server();
    return measured(srv.child.pid, (s) =>
      wrk(`${srv.url}${d.path}`, d.connections, d.headers, d.script, s),
    );
  };

  const range = ["Range: bytes=0-"];
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `wrk phases of ${DURATION} s each (loopback, ${new Date().toISOString()}, load average ${load})`,
  );
  await phase(
    "2 MiB segment, 64 conns, Range (streamed per request)",
    (s) => wrk(seg2m, 64, range, undefined, s),
    (s) => wrk(`${ng}/seg2m.ts`, 64, range, undefined, s),
    undefined,
    bareRef(bareProxy, "/seg2m.ts", 64, range),
  );
  await phase(
    "2 MiB segment, 64 conns, same URL (gateway fan-in)",
    (s) => wrk(seg2m, 64, [], undefined, s),
    (s) => wrk(`${ng}/seg2m.ts`, 64, [], undefined, s),
    (s) => wrk(`${nc}/seg2m.ts`, 64, [], undefined, s),
    bareRef(bareHolding("seg2m.ts"), "/seg2m.ts", 64),
  );
  // Control: the HTTP stack alone (no playback code), to read the other p99 figures against.
  await phase(
    "control: GET /healthz, 200 conns",
    (s) => wrk(`${gw}/healthz`, 200, [], undefined, s),
    (s) => wrk(`${ng}/healthz`, 200, [], undefined, s),
  );
  await phase(
    "index.m3u8 rewrite, 200 conns",
    (s) => wrk(liveUrl, 200, [], undefined, s),
    (s) => wrk(`${ng}/live.m3u8`, 200, [], undefined, s),
    undefined,
    bareRef(bareServer, "/live.m3u8", 200),
  );
  await phase(
    `index.m3u8 rewrite, 200 conns, ${TOKENS} distinct session tokens`,
    (s) => wrk(`${gw}/`, 200, [], tokensLua, s),
    (s) => wrk(`${ng}/live.m3u8`, 200, [], undefined, s),
    undefined,
    bareRef(bareServer, "/", 200, [], tokensLua),
  );
  await phase(
    "200 KiB segment, 64 conns, Range",
    (s) => wrk(seg200k, 64, range, undefined, s),
    (s) => wrk(`${ng}/seg200k.ts`, 64, range, undefined, s),
    undefined,
    bareRef(bareProxy, "/seg200k.ts", 64, range),
  );
  await phase(
    "200 KiB segment, 64 conns, same URL",
    (s) => wrk(seg200k, 64, [], undefined, s),
    (s) => wrk(`${ng}/seg200k.ts`, 64, [], undefined, s),
    (s) => wrk(`${nc}/seg200k.ts`, 64, [], undefined, s),
    bareRef(bareHolding("seg200k.ts"), "/seg200k.ts", 64),
  );

  // RSS added by VIEWERS idle keep-alive viewers, each with its own token, polling the live
  // playlist once a second for 10 s (the figure an operator sees: RSS after minus before);
  // then the same pollers against a bare node:http server answering the same playlist bytes,
  // the floor of any Node server for this load.
  const idle = selected(`${VIEWERS} idle keep-alive viewers`);
  const pollIdle = async (pid, urlOf) => {
    await new Promise((r) => setTimeout(r, 3000));
    const before = rssMiB(pid);
    // One keep-alive connection per viewer, as each player has its own.
    const agents = Array.from(
      { length: VIEWERS },
      () => new Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 }),
    );
    const viewers = Array.from({ length: VIEWERS }, (_, i) => i);
    let failed = 0;
    if (IDLE_PATTERN === "burst") {
      for (let round = 0; round < 10; round++) {
        const statuses = await Promise.all(viewers.map((i) => get(urlOf(i), agents[i])));
        failed += statuses.filter((st) => st !== 200).length;
        await new Promise((r) => setTimeout(r, 1000));
      }
    } else {
      // Each viewer on its own schedule: poll k at start + offset + k seconds.
      const start = performance.now();
      const viewer = async (i) => {
        const offset = (i * 1000) / VIEWERS;
        for (let round = 0; round < 10; round++) {
          const due = start + offset + round * 1000 - performance.now();
          if (due > 0) await new Promise((r) => setTimeout(r, due));
          if ((await get(urlOf(i), agents[i])) !== 200) failed++;
        }
      };
      await Promise.all(viewers.map(viewer));
      await new Promise((r) => setTimeout(r, 1000));
    }
    const open = agents.reduce(
      (n, a) =>
        n + Object.values(a.sockets).flat().length + Object.values(a.freeSockets).flat().length,
      0,
    );
    const after = rssMiB(pid);
    for (const a of agents) a.destroy();
    return { before, after, open, failed };
  };
  let idleGateway;
  let idleBare;
  if (idle) {
    process.stdout.write(`  ${VIEWERS} idle keep-alive viewers …\n`);
    /** Viewer i's poll, with its own token, on the server at `base`. */
    const pollUrl = (base) => (i) =>
      `${base}/v1/play/live/index.m3u8?token=${viewerTokens[i % viewerTokens.length]}`;
    idleGateway = await pollIdle(gateway.pid, pollUrl(gw));
    const body = join(work, "idle-playlist.m3u8");
    writeFileSync(body, Buffer.from(await (await fetch(pollUrl(gw)(0))).arrayBuffer()));
    const bare = await startBare(body, `${GATEWAY_OUT}.bare`);
    idleBare = await pollIdle(bare.child.pid, pollUrl(bare.url));
  }

  const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
  const mib = (b) => fmt(b / (1 << 20), 1);
  /** CPU milliseconds per byte served. */
  const cpuPerByte = (r) => (r.cpuMsPerReq * r.rps) / r.transfer;
  const cell = (r) =>
    `${fmt(r.rps)} req/s, ${mib(r.transfer)} MiB/s, p50 ${fmt(r.p50, 2)} ms, p98 ${fmt(r.p98, 1)} ms, p99 ${fmt(r.p99, 2)} ms, p99.5 ${fmt(r.p995, 1)} ms, p99.9 ${fmt(r.p999, 1)} ms, max ${fmt(r.max)} ms, CPU ${fmt(r.cpuMsPerReq, 3)} ms/req, ${fmt((cpuPerByte(r) * (1 << 30)) / 1000, 2)} cpu-s/GiB${r.non2xx ? `, ${r.non2xx} non-2xx` : ""}${r.timeouts ? `, ${r.timeouts} wrk timeouts` : ""}`;
  const ratioCell = (g, n, seg) =>
    `${fmt(seg ? g.transfer / n.transfer : g.rps / n.rps, 2)}× ${seg ? "throughput" : "req/s"}, ${fmt(cpuPerByte(g) / cpuPerByte(n), 2)}× CPU/GiB, p99 Δ ${fmt(g.p99 - n.p99, 2)} ms`;
  console.log(
    "\n| phase | gateway | nginx `proxy_pass` | vs `proxy_pass` | nginx `proxy_cache` + lock | vs `proxy_cache` | bare Node (same bytes / proxy) | vs bare Node |\n| --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const [name, { gateway: g, nginx: n, cache: c, bare: b }] of Object.entries(results)) {
    const seg = name.includes("segment");
    const ref = (r) => (r === undefined ? "– | –" : `${cell(r)} | ${ratioCell(g, r, seg)}`);
    console.log(
      `| ${name} | ${cell(g)} | ${cell(n)} | ${ratioCell(g, n, seg)} | ${ref(c)} | ${ref(b)} |`,
    );
  }
  const line = (name, text) => (results[name] === undefined ? "" : `- ${text(results[name])}\n`);
  console.log(`\ntargets (issue 13):
${line("2 MiB segment, 64 conns, Range (streamed per request)", (r) => `2 MiB Range: ${fmt(r.gateway.transfer / r.nginx.transfer, 2)}× proxy_pass throughput (target >= 0.8), p99 Δ ${fmt(r.gateway.p99 - r.nginx.p99, 2)} ms (target < 100); bare Node proxy ${fmt(r.bare.transfer / r.nginx.transfer, 2)}×, p99 Δ ${fmt(r.bare.p99 - r.nginx.p99, 2)} ms`)}${line("2 MiB segment, 64 conns, same URL (gateway fan-in)", (r) => `2 MiB same URL: CPU per GiB ${fmt(cpuPerByte(r.gateway) / cpuPerByte(r.cache), 2)}× the caching nginx (target <= 2); bare Node server holding the segment ${fmt(cpuPerByte(r.bare) / cpuPerByte(r.cache), 2)}×`)}${line("index.m3u8 rewrite, 200 conns", (r) => `index.m3u8, one token: ${fmt(r.gateway.rps)} req/s (target >= 20000), p99 ${fmt(r.gateway.p99, 2)} ms (target < 10); bare node:http ${fmt(r.bare.rps)} req/s, p99 ${fmt(r.bare.p99, 2)} ms`)}${line(`index.m3u8 rewrite, 200 conns, ${TOKENS} distinct session tokens`, (r) => `index.m3u8, ${TOKENS} tokens: ${fmt(r.gateway.rps)} req/s (target >= 15000), p99 ${fmt(r.gateway.p99, 2)} ms (target < 10); bare node:http ${fmt(r.bare.rps)} req/s, p99 ${fmt(r.bare.p99, 2)} ms`)}${line("200 KiB segment, 64 conns, Range", (r) => `200 KiB Range p99 Δ ${fmt(r.gateway.p99 - r.nginx.p99, 2)} ms (keep)`)}${
  idle
    ? `- RSS per ${VIEWERS} idle keep-alive viewers polling once a second (${IDLE_PATTERN}): +${fmt(idleGateway.after - idleGateway.before, 1)} MiB (${fmt(idleGateway.before, 1)} -> ${fmt(idleGateway.after, 1)} MiB; target < ${fmt((20 * VIEWERS) / 1000, 1)}; ${idleGateway.open} connections open, ${idleGateway.failed} of ${VIEWERS * 10} polls failed); bare node:http with the same bytes: +${fmt(idleBare.after - idleBare.before, 1)} MiB (${fmt(idleBare.before, 1)} -> ${fmt(idleBare.after, 1)} MiB, ${idleBare.failed} failed)`
    : ""
}`);
}

try {
  await main();
} finally {
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  if (!process.argv.includes("--keep"))
    setTimeout(() => rmSync(work, { recursive: true, force: true }), 500);
}
