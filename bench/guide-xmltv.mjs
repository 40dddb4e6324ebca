// Guide benchmark (docs/benchmarks.md "Guide"): a generated XMLTV of N channels
// x D days, gzipped at a loopback origin, refreshed by the full gateway and
// served back, side by side with `xmllint --stream --noout` on the same file.
// Measures: refresh time vs xmllint, peak RSS growth of the gateway during the
// refresh and during epg.xml.gz, epg.xml.gz time to first byte and total, and
// the first GET /v1/admin/epg/matches (matching every channel).
// Run after `npm run build`:
//   node bench/guide-xmltv.mjs                      # 40,000 channels, 7 days (~200 MB of XML)
//   node bench/guide-xmltv.mjs --channels 500 --days 2   # a quick check
//   node bench/guide-xmltv.mjs --no-channel-elements --distinct-times  # ids only, varied times
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createGzip } from "node:zlib";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const CHANNELS = arg("channels", 40_000);
const DAYS = arg("days", 7);
/** Programmes per channel and day: 3 gives ~200 MB of XML at 40,000 channels x 7 days. */
const PER_DAY = arg("per-day", 3);
const keep = process.argv.includes("--keep");
/** `--no-channel-elements`: programmes name channel ids no `<channel>` element declares. */
const noChannelElements = process.argv.includes("--no-channel-elements");
/** `--distinct-times`: each channel's times shifted by (channel % 3000) minutes, as real guides vary. */
const distinctTimes = process.argv.includes("--distinct-times");
/** `--node-arg X` (repeatable): extra Node flags for the gateway, e.g. `--cpu-prof`. */
const nodeArgs = process.argv.flatMap((a, i) =>
  a === "--node-arg" && i + 1 < process.argv.length ? [process.argv[i + 1]] : [],
);

const bcrypt = (await import(join(root, "tests/node_modules/bcrypt/bcrypt.js"))).default;
const dir = mkdtempSync(join(tmpdir(), "svc-guide-bench-"));
const gzFile = join(dir, "guide.xml.gz");
const pad = (n) => String(n).padStart(5, "0");
const words = ["News", "Film", "Sport", "Kids", "Music", "Docs", "Talk", "Quiz"];

async function generate() {
  const gzip = createGzip({ level: 6 });
  const out = createWriteStream(gzFile);
  gzip.pipe(out);
  let xmlBytes = 0;
  const write = async (s) => {
    xmlBytes += Buffer.byteLength(s);
    if (!gzip.write(s)) await once(gzip, "drain");
  };
  await write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n<tv generator-info-name="svc-bench">\n',
  );
  for (let c = 0; c < (noChannelElements ? 0 : CHANNELS); c++)
    await write(
      `<channel id="ch${pad(c)}.bench"><display-name>Channel ${pad(c)} HD</display-name><icon src="http://127.0.0.1:9/logo/${c}.png"/></channel>\n`,
    );
  const t0 = Date.UTC(2026, 0, 1) / 1000;
  const step = 86_400 / PER_DAY;
  const fmt = (t) => new Date(t * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14);
  for (let c = 0; c < CHANNELS; c++) {
    let chunk = "";
    for (let i = 0; i < DAYS * PER_DAY; i++) {
      const s = t0 + i * step + (distinctTimes ? (c % 3000) * 60 : 0);
      const w = words[(c + i) % words.length];
      // Offsets vary: half the channels write +0100 wall times, half offset-less (source zone).
      const start = c % 2 === 0 ? `${fmt(s + 3600)} +0100` : fmt(s + 3600);
      const stop = c % 2 === 0 ? `${fmt(s + step + 3600)} +0100` : fmt(s + step + 3600);
      chunk += `<programme start="${start}" stop="${stop}" channel="ch${pad(c)}.bench"><title lang="en">${w} &amp; more ${i}</title><desc lang="en">Episode ${i} of ${w.toLowerCase()} on channel ${c}: a description of typical length for a guide.</desc><category lang="en">${w}</category></programme>\n`;
    }
    await write(chunk);
  }
  await write("</tv>\n");
  gzip.end();
  await once(out, "finish");
  return { xmlBytes, gzBytes: statSync(gzFile).size };
}

/**
 * CPU time (user + system, ms) from /proc/<pid>/stat: fields 14-15 of the process,
 * or 16-17 for its waited-for children (USER_HZ is 100 on Linux). On a busy
 * machine CPU time is steadier than wall time; the targets are wall time.
 */
const cpuMs = (pid, children = false) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const i = children ? 13 : 11;
  return (Number(f[i]) + Number(f[i + 1])) * 10;
};
const rssKb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
function sampler(pid) {
  let peak = rssKb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid));
    } catch {}
  }, 25);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

const gen0 = Date.now();
const size = await generate();
const genMs = Date.now() - gen0;

// xmllint: the C streaming parser, one pass over the same gzipped file.
const xc0 = cpuMs("self", true);
const x0 = process.hrtime.bigint();
const lint = spawnSync("xmllint", ["--stream", "--noout", "--nonet", gzFile], { encoding: "utf8" });
const xmllintMs = Number(process.hrtime.bigint() - x0) / 1e6;
const xmllintCpuMs = cpuMs("self", true) - xc0;
if (lint.status !== 0) throw new Error(`xmllint failed: ${lint.stderr.slice(0, 500)}`);

const origin = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/gzip", "content-length": size.gzBytes });
  createReadStream(gzFile).pipe(res);
});
// A download held back by a slow refresh may take many minutes: no server timeout.
origin.requestTimeout = 0;
origin.timeout = 0;
await new Promise((r) => origin.listen(0, "127.0.0.1", r));
const originUrl = `http://127.0.0.1:${origin.address().port}/guide.xml.gz`;

const password = "bench-password-1";
const channels = Array.from({ length: CHANNELS }, (_, c) => ({
  id: `c${c}`,
  title:
    c % 3 === 0
      ? `CHANNEL ${pad(c)}`
      : c % 3 === 1
        ? `UK: Channel ${pad(c)} FHD`
        : `channel.${pad(c)}`,
  ingress: "hls",
  source_url: `http://127.0.0.1:9/c${c}.m3u8`,
}));
const config = join(dir, "gateway.yaml");
// JSON is YAML: 40,000 channels are written without a YAML library.
writeFileSync(
  config,
  JSON.stringify({
    server: { listen: "127.0.0.1:0", data_dir: join(dir, "data") },
    auth: {
      users: [{ username: "admin", password_hash: bcrypt.hashSync(password, 4), role: "admin" }],
      login_rate_per_min: 1000,
    },
    security: { allowed_hosts: ["127.0.0.1"] },
    guide: { refresh_interval_min: 100_000, logo_repositories: [] },
    channels,
  }),
);
const gw = spawn(
  process.execPath,
  [...nodeArgs, join(root, "apps/gateway-full/dist/main.js"), "--config", config],
  {
    env: { PATH: process.env.PATH, SVC_LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
// A failed run must not leave the gateway behind.
process.on("exit", () => gw.exitCode === null && gw.kill("SIGKILL"));
let out = "";
gw.stdout.setEncoding("utf8").on("data", (d) => (out += d));
while (!/listening on (\S+)/.test(out)) {
  if (gw.exitCode !== null) throw new Error(`gateway exited: ${out}`);
  await new Promise((r) => setTimeout(r, 50));
}
const base = /listening on (\S+)/.exec(out)[1];
// node:http, not fetch: a refresh on a loaded machine may take longer than
// fetch's 300 s header timeout.
const json = (path, init = {}) =>
  new Promise((resolve, reject) => {
    const req = request(base + path, { method: init.method ?? "GET", headers: init.headers });
    req.on("error", reject);
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
      res.on("error", reject);
    });
    req.end(init.body);
  });
const { token } = (
  await json("/v1/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  })
).body;
const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
const src = await json("/v1/admin/epg/sources", {
  method: "POST",
  headers: auth,
  body: JSON.stringify({ id: "bench", url: originUrl, timezone: "Europe/Berlin" }),
});
if (src.status !== 201) throw new Error(JSON.stringify(src));

await new Promise((r) => setTimeout(r, 500));
const idleKb = rssKb(gw.pid);
let s = sampler(gw.pid);
const rc0 = cpuMs(gw.pid);
const r0 = process.hrtime.bigint();
const refresh = await json("/v1/admin/epg/refresh", { method: "POST", headers: auth });
const refreshMs = Number(process.hrtime.bigint() - r0) / 1e6;
const refreshPeakKb = s.stop();
const refreshCpuMs = cpuMs(gw.pid) - rc0;
if (!refresh.body.ok) throw new Error(JSON.stringify(refresh.body));

s = sampler(gw.pid);
const m0 = process.hrtime.bigint();
const matches = await json("/v1/admin/epg/matches", { headers: auth });
const matchMs = Number(process.hrtime.bigint() - m0) / 1e6;
const matched = matches.body.matches.filter((m) => m.status === "matched").length;
// Again, the index built: what each later listing costs.
const m1 = process.hrtime.bigint();
await json("/v1/admin/epg/matches", { headers: auth });
const matchAgainMs = Number(process.hrtime.bigint() - m1) / 1e6;
const matchesPeakKb = s.stop();

// The epg figure is the growth over the RSS the request starts from: what the two
// matches listings (tens of MB of JSON each) left in V8's heap is theirs, not the guide
// output's, and V8 does not give it back while the process is busy.
const epgStartKb = rssKb(gw.pid);
s = sampler(gw.pid);
const e0 = process.hrtime.bigint();
const res = await fetch(`${base}/v1/epg.xml.gz`);
let ttfbMs;
let epgBytes = 0;
for await (const chunk of res.body) {
  ttfbMs ??= Number(process.hrtime.bigint() - e0) / 1e6;
  epgBytes += chunk.length;
}
const epgMs = Number(process.hrtime.bigint() - e0) / 1e6;
const epgPeakKb = s.stop();

gw.kill("SIGTERM");
await once(gw, "exit");
origin.closeAllConnections();
origin.close();
if (!keep) rmSync(dir, { recursive: true, force: true });

const mib = (kb) => Math.round((kb / 1024) * 10) / 10;
console.log(
  JSON.stringify(
    {
      input: {
        channels: CHANNELS,
        channel_elements: !noChannelElements,
        distinct_times: distinctTimes,
        days: DAYS,
        per_day: PER_DAY,
        xml_mb: Math.round(size.xmlBytes / 1e6),
        gz_mb: Math.round(size.gzBytes / 1e6),
        generate_ms: genMs,
      },
      xmllint_stream_ms: Math.round(xmllintMs),
      refresh_ms: Math.round(refreshMs),
      refresh_vs_xmllint: Math.round((refreshMs / xmllintMs) * 10) / 10,
      xmllint_cpu_ms: xmllintCpuMs,
      refresh_cpu_ms: refreshCpuMs,
      refresh_cpu_vs_xmllint_cpu: Math.round((refreshCpuMs / xmllintCpuMs) * 10) / 10,
      programmes: refresh.body.statuses[0].programme_count,
      rss_idle_mib: mib(idleKb),
      rss_growth_refresh_mib: mib(refreshPeakKb - idleKb),
      matches_ms: Math.round(matchMs),
      matches_again_ms: Math.round(matchAgainMs),
      matched,
      epg_gz_ttfb_ms: Math.round(ttfbMs),
      epg_gz_total_ms: Math.round(epgMs),
      epg_gz_mb: Math.round(epgBytes / 1e5) / 10,
      rss_growth_matches_mib: mib(matchesPeakKb - idleKb),
      rss_before_epg_mib: mib(epgStartKb),
      rss_growth_epg_mib: mib(epgPeakKb - epgStartKb),
      targets:
        "refresh <= 8x xmllint, RSS growth < 200 MiB, epg.xml.gz total < 10 s, matching 40,000 < 5 s",
    },
    null,
    2,
  ),
);
