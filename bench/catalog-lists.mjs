// Memory of the catalog-sized answers (issue 36 item 3): with N catalog channels (default
// 40,000), the gateway's RSS growth while it answers, each in a fresh process:
//   full  GET  /v1/admin/channels      (admin JSON list)
//   full  POST /v1/admin/exports/m3u   (M3U export with a new playback key)
//   full  GET  /v1/playlist.m3u        (the session's playlist)
//   lite  GET  /v1/playlist.m3u        (static catalog from the config file)
// The full build's catalog is seeded once from the config file into a temp SQLite state
// database; every measured process then starts on that database with a config without
// channels, so the start's garbage (YAML parse, import) is not in its heap. Growth is the
// peak RSS during the answer (VmHWM, reset through /proc/PID/clear_refs before the request,
// and VmRSS sampled every 10 ms) minus the RSS before it. The client reads the body as it
// comes and keeps only its length. RSS growth does not depend on the load of the machine, wall
// time does (docs/benchmarks.md "Channel lists at catalog scale"): each answer is also timed
// from the request to its last byte, the measured one and `--repeat N` (default 3) more in
// the same process; take the times on a quiet machine only.
//   node bench/catalog-lists.mjs [--channels 40000] [--root DIR] [--repeat 3] [--keep]
// --root DIR measures the build of another checkout (e.g. the main branch) with the same
// bench; the answers' bytes are the same, so the figures compare.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
const count = Number(arg("--channels", "40000"));
const root = resolve(arg("--root", here));
const keep = argv.includes("--keep");
const repeat = Number(arg("--repeat", "3"));
const require = createRequire(join(here, "packages", "core", "package.json"));
const bcrypt = require("bcrypt");
const nodeFlags = JSON.parse(
  readFileSync(join(here, "scripts", "gateway-node-flags.json"), "utf8"),
);

/** Channels in the shape an imported panel playlist gives, a sensitive header on every tenth. */
export function benchChannels(n) {
  return Array.from({ length: n }, (_, i) => ({
    id: `ch${String(i).padStart(5, "0")}`,
    title: `Channel ${i} HD`,
    group: `Group ${i % 50}`,
    logo_url: `http://127.0.0.1:9/logo/${i}.png`,
    epg_id: `ch${i}.bench`,
    epg_name: `Channel ${i}`,
    ingress: "hls",
    source_url: `http://127.0.0.1:9/live/${i}/index.m3u8`,
    ...(i % 10 === 0 ? { headers: { Authorization: `Bearer secret-${i}` } } : {}),
  }));
}

const kib = (pid, key) =>
  Number(
    new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1],
  );

const dir = mkdtempSync(join(tmpdir(), "svc-bench-lists-"));
const password = "bench-password";
const users = [{ username: "admin", password_hash: bcrypt.hashSync(password, 4), role: "admin" }];
const channels = benchChannels(count);

/** Starts a build on `config` (JSON is YAML); resolves with the process and its URL. */
async function start(build, config) {
  const path = join(dir, `${build}.yaml`);
  writeFileSync(path, JSON.stringify(config));
  const proc = spawn(
    process.execPath,
    [...nodeFlags, join(root, "apps", `gateway-${build}`, "dist", "main.js"), "--config", path],
    {
      env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  const url = await new Promise((ok, fail) => {
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (m) ok(m[1]);
    });
    proc.once("exit", (code) => fail(new Error(`gateway exited ${code}`)));
  });
  const stop = async () => {
    proc.kill("SIGTERM");
    if (proc.exitCode === null) await new Promise((r) => proc.once("exit", r));
  };
  return { proc, url, stop };
}

async function login(url) {
  const res = await fetch(`${url}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  return (await res.json()).token;
}

/** RSS growth of `pid` while `request` runs, and the answer's byte count. */
async function measure(pid, request) {
  await new Promise((r) => setTimeout(r, 1000));
  const before = kib(pid, "VmRSS");
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, kib(pid, "VmRSS"));
  }, 10);
  const first = await timed(request);
  clearInterval(sampler);
  peak = Math.max(peak, kib(pid, "VmHWM"), kib(pid, "VmRSS"));
  const times = [first.ms];
  for (let i = 0; i < repeat; i++) times.push((await timed(request)).ms);
  return {
    before,
    growth: peak - before,
    bytes: first.bytes,
    chunked: first.chunked,
    times,
  };
}

/** One answer read to its end: its bytes and the milliseconds from the request to the last. */
async function timed(request) {
  const t0 = performance.now();
  const res = await request();
  if (res.status >= 300) throw new Error(`status ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  return {
    ms: performance.now() - t0,
    bytes,
    chunked: res.headers.get("content-length") === null,
  };
}

const mib = (k) => (k / 1024).toFixed(1);
const report = (label, m) =>
  console.log(
    `${label.padEnd(34)} RSS growth ${mib(m.growth).padStart(6)} MiB (RSS before ${mib(m.before)} MiB), ${mib(m.bytes / 1024)} MiB ${m.chunked ? "chunked" : "with Content-Length"}; ms to the last byte: ${m.times.map((t) => t.toFixed(0)).join(", ")}`,
  );

const data = join(dir, "data");
const full = { server: { listen: "127.0.0.1:0", data_dir: data }, auth: { users } };
try {
  console.log(`build ${root}, ${count} channels`);
  const seed = await start("full", { ...full, channels });
  await seed.stop();
  const answers = [
    [
      "full GET /v1/admin/channels",
      (url, token) =>
        fetch(`${url}/v1/admin/channels`, { headers: { authorization: `Bearer ${token}` } }),
    ],
    [
      "full POST /v1/admin/exports/m3u",
      (url, token) =>
        fetch(`${url}/v1/admin/exports/m3u`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
        }),
    ],
    ["full GET /v1/playlist.m3u", (url, token) => fetch(`${url}/v1/playlist.m3u?token=${token}`)],
  ];
  for (const [label, request] of answers) {
    const gw = await start("full", full);
    try {
      const token = await login(gw.url);
      report(label, await measure(gw.proc.pid, () => request(gw.url, token)));
    } finally {
      await gw.stop();
    }
  }
  const lite = await start("lite", {
    server: { listen: "127.0.0.1:0", data_dir: join(dir, "lite") },
    auth: { users },
    channels,
  });
  try {
    const token = await login(lite.url);
    report(
      "lite GET /v1/playlist.m3u",
      await measure(lite.proc.pid, () => fetch(`${lite.url}/v1/playlist.m3u?token=${token}`)),
    );
  } finally {
    await lite.stop();
  }
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
