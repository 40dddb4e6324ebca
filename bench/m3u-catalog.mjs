// M3U import and export at catalog scale (issue 11): a generated playlist of N entries
// (default 40,000) previewed and applied through POST /v1/admin/import/m3u, then the
// catalog exported through POST /v1/admin/exports/m3u. Reports wall time of each call and
// the gateway's peak RSS growth (VmHWM minus the RSS before the import). Loopback only:
// the generated sources point at 127.0.0.1:9 and are never contacted.
//   node bench/m3u-catalog.mjs [--entries 40000] [--keep] [--cpu-prof DIR]
// --cpu-prof DIR starts the gateway with `node --cpu-prof` writing its profile into DIR
// (open it in Chromium's DevTools, Performance tab) to see where an import spends its time.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "packages", "core", "package.json"));
const bcrypt = require("bcrypt");
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
const entries = Number(arg("--entries", "40000"));
const keep = argv.includes("--keep");
const cpuProfDir = arg("--cpu-prof", "");

/** A playlist in the shape panels export: attributes, groups, a VLC option every 10th entry. */
function generate(n) {
  const lines = ['#EXTM3U x-tvg-url="http://127.0.0.1:9/guide.xml.gz"'];
  for (let i = 0; i < n; i++) {
    lines.push(
      `#EXTINF:-1 tvg-id="ch${i}.bench" tvg-name="Channel ${i}" tvg-logo="http://127.0.0.1:9/logo/${i}.png" group-title="Group ${i % 50}" tvg-chno="${i + 1}",Channel ${i} HD`,
    );
    if (i % 10 === 0) lines.push("#EXTVLCOPT:http-user-agent=BenchPlayer/1.0");
    lines.push(`http://127.0.0.1:9/live/${i}/index.m3u8`);
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** CPU time (user + system) the process has used, in milliseconds (/proc/PID/stat, 100 Hz ticks). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

const dir = mkdtempSync(join(tmpdir(), "svc-bench-m3u-"));
const password = "bench-password";
const config = {
  server: { listen: "127.0.0.1:0", data_dir: join(dir, "data") },
  auth: {
    users: [{ username: "admin", password_hash: bcrypt.hashSync(password, 4), role: "admin" }],
  },
};
writeFileSync(join(dir, "gateway.yaml"), JSON.stringify(config));
const proc = spawn(
  process.execPath,
  [
    ...(cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : []),
    join(root, "apps", "gateway-full", "dist", "main.js"),
    "--config",
    join(dir, "gateway.yaml"),
  ],
  {
    env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
let out = "";
const base = await new Promise((resolve, reject) => {
  proc.stdout.on("data", (d) => {
    out += d;
    const m = /^listening on (http:\/\/\S+)$/m.exec(out);
    if (m) resolve(m[1]);
  });
  proc.once("exit", (code) => reject(new Error(`gateway exited ${code}`)));
});

try {
  const login = await (
    await fetch(`${base}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password }),
    })
  ).json();
  const auth = { authorization: `Bearer ${login.token}`, "content-type": "application/json" };
  const content = generate(entries);
  const timed = async (label, url, body) => {
    const t0 = performance.now();
    const c0 = cpuMs(proc.pid);
    const res = await fetch(url, {
      method: "POST",
      headers: auth,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    const cpu = cpuMs(proc.pid) - c0;
    if (res.status >= 300) throw new Error(`${label}: ${res.status} ${text.slice(0, 200)}`);
    return { ms, cpu, text };
  };
  const idle = status(proc.pid);
  const preview = await timed("preview", `${base}/v1/admin/import/m3u`, { content, apply: false });
  const previewed = JSON.parse(preview.text);
  const apply = await timed("apply", `${base}/v1/admin/import/m3u`, {
    content,
    apply: true,
    revisions: previewed.revisions,
  });
  const applied = JSON.parse(apply.text);
  const exported = await timed("export", `${base}/v1/admin/exports/m3u`);
  const peak = status(proc.pid);
  const exportedEntries = (exported.text.match(/^#EXTINF/gm) ?? []).length;
  if (applied.created !== entries || exportedEntries !== entries)
    throw new Error(`expected ${entries}, created ${applied.created}, exported ${exportedEntries}`);
  const mib = (kib) => (kib / 1024).toFixed(1);
  console.log(
    `entries            ${entries} (${mib(Buffer.byteLength(content) / 1024)} MiB of M3U)`,
  );
  // Wall time is the figure; the gateway's CPU time beside it shows how much of it was
  // waiting for a busy machine.
  console.log(`preview            ${preview.ms.toFixed(0)} ms (gateway CPU ${preview.cpu} ms)`);
  console.log(`apply              ${apply.ms.toFixed(0)} ms (gateway CPU ${apply.cpu} ms)`);
  console.log(
    `export             ${exported.ms.toFixed(0)} ms (gateway CPU ${exported.cpu} ms, ${mib(Buffer.byteLength(exported.text) / 1024)} MiB)`,
  );
  console.log(`RSS before import  ${mib(idle.rss)} MiB`);
  console.log(`peak RSS growth    ${mib(peak.hwm - idle.rss)} MiB (VmHWM ${mib(peak.hwm)} MiB)`);
} finally {
  proc.kill("SIGTERM");
  await new Promise((r) => proc.once("exit", r));
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
