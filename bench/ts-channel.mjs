#!/usr/bin/env node
// MPEG-TS channel benchmark (issue 33, docs/benchmarks.md "MPEG-TS channels"): the lite
// gateway's `ingress: ts` channel side by side with ffmpeg and nginx in the same run.
// Loopback only; not part of `npm test`. Needs ffmpeg and nginx on PATH.
//
//   npx pnpm@10.34.9 exec turbo run build
//   node bench/ts-channel.mjs [--seconds 30] [--viewers 200] [--cpu 1] [--client-cpu 0]
//     [--phases segmenter,viewers,cold] [--node-arg --cpu-prof --node-arg --cpu-prof-dir=DIR]
//
// Source: a 90 s H.264 720p + AAC MPEG-TS at ~8 Mbit/s (x264 CBR with filler), made once
// with ffmpeg and cached in the temp folder, served by an origin in this process that paces
// it at its real rate from one shared clock (every connection joins "live"). The gateway and
// each reference are pinned to `--cpu`; this process (origin and viewers) to `--client-cpu`.
//
// Phases, each printed as a JSON line, alternated A/B where there is a reference:
// 0. floor: CPU of a bare Node process that reads the source and drops it (no segmenting);
// 1. segmenter: CPU of the gateway packaging the channel (one HLS viewer fetching every
//    segment) vs `ffmpeg -i URL -c copy -f hls` and `ffmpeg -i URL -c copy -f mpegts -`
//    (target: gateway <= 0.5x ffmpeg -f hls);
// 2. viewers: `--viewers` stream.ts viewers of the channel for `--seconds`: bytes each viewer
//    got against the source rate (a viewer under 90 % "fell behind"), the gateway's CPU per
//    Gbit/s sent vs nginx serving the source file to as many clients at the same rate
//    (`limit_rate`; target within 2x) and vs a bare Node server that writes each chunk of one
//    read of the source to every client (the floor of a Node fan-out), the gateway's RSS
//    with 0, half and all viewers;
// 3. cold start: for 5 channels never played, time from the request to the first stream.ts
//    byte (target < 1 s) and from index.m3u8 to the end of the first segment
//    (target < one segment + 0.5 s); beside each, ffmpeg started on the same live source
//    (`-c copy -f mpegts` to a pipe: time to its first byte; `-c copy -f hls -hls_time 2`:
//    time until its playlist lists a first segment), the floor a copying packager has.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, get } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway } from "../tests/dist/harness/gateway-process.js";
import { authSection } from "../tests/dist/harness/users.js";
import { writeNginxConf } from "./nginx-conf.mjs";
import { cpuSeconds, memoryKiB } from "./proc-cpu.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const SECONDS = Number(arg("seconds", "30"));
const VIEWERS = Number(arg("viewers", "200"));
const CPU = arg("cpu", "1");
const CLIENT_CPU = arg("client-cpu", "0");
const MEDIA_SEC = 90;
/** `--node-arg X` (repeatable): extra Node flags for the gateway, e.g. `--cpu-prof`. */
const NODE_ARGS = process.argv.flatMap((a, i) =>
  a === "--node-arg" && i + 1 < process.argv.length ? [process.argv[i + 1]] : [],
);
/** `--phases floor,segmenter,viewers,cold` (default all). */
const PHASES = new Set(arg("phases", "floor,segmenter,viewers,cold").split(","));

spawnSync("taskset", ["-cp", CLIENT_CPU, String(process.pid)]);
const pin = (pid) => spawnSync("taskset", ["-a", "-cp", CPU, String(pid)]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssMiB = (pid) => memoryKiB(pid).rss / 1024;
const out = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

out({
  bench: "ts-channel",
  at: new Date().toISOString(),
  load_average: loadavg()[0].toFixed(2),
  seconds: SECONDS,
  viewers: VIEWERS,
  cpu: CPU,
  client_cpu: CLIENT_CPU,
});

// The source file, made once.
const media = join(tmpdir(), "svc-ts-bench-720p-8m.ts");
if (!existsSync(media)) {
  const r = spawnSync(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25"],
      ...["-f", "lavfi", "-i", "sine=frequency=440"],
      ...["-t", String(MEDIA_SEC), "-c:v", "libx264", "-preset", "ultrafast", "-g", "50"],
      ...["-b:v", "7800k", "-minrate", "7800k", "-maxrate", "7800k", "-bufsize", "4000k"],
      ...["-x264-params", "nal-hrd=cbr", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k"],
      ...["-f", "mpegts", media],
    ],
    { stdio: "inherit" },
  );
  if (r.status !== 0) throw new Error("ffmpeg could not make the source file");
}
const source = readFileSync(media);
const RATE = source.length / MEDIA_SEC; // bytes per second
out({ source: media, mbit_per_s: ((RATE * 8) / 1e6).toFixed(2), mib: source.length / 2 ** 20 });

// The paced origin: every connection gets the file from where the shared clock is.
const t0 = Date.now();
const originConnections = new Map();
const origin = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname + new URL(req.url, "http://x").search;
  originConnections.set(path, (originConnections.get(path) ?? 0) + 1);
  res.writeHead(200, { "Content-Type": "video/mp2t" });
  let sent = Math.floor((((Date.now() - t0) / 1000) * RATE) / 188) * 188;
  const tick = setInterval(() => {
    const due = Math.floor((((Date.now() - t0) / 1000) * RATE) / 188) * 188;
    while (sent < due) {
      const at = sent % source.length;
      const end = Math.min(source.length, at + (due - sent));
      const more = res.write(source.subarray(at, end));
      sent += end - at;
      if (!more) break;
    }
  }, 20);
  res.on("close", () => clearInterval(tick));
});
await new Promise((r) => origin.listen(0, "127.0.0.1", r));
const ORIGIN = `http://127.0.0.1:${origin.address().port}`;

async function gateway(channels) {
  const gw = await startGateway(
    "lite",
    {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      extensions: { ts_output: true },
      channels,
    },
    { nodeArgs: NODE_ARGS },
  );
  pin(gw.proc.pid);
  return gw;
}
const tsChannel = (id, query = "") => ({
  id,
  title: id,
  ingress: "ts",
  source_url: `${ORIGIN}/live.ts${query}`,
});

/** An HLS viewer fetching every new segment of `base` until `signal` aborts. */
async function hlsViewer(base, signal) {
  const seen = new Set();
  let media;
  while (!signal.aborted) {
    try {
      if (media === undefined) {
        const master = await (await fetch(`${base}/index.m3u8`, { signal })).text();
        const line = master.split("\n").find((l) => l !== "" && !l.startsWith("#"));
        media = new URL(line, `${base}/index.m3u8`).href;
      }
      const text = await (await fetch(media, { signal })).text();
      for (const l of text.split("\n"))
        if (l !== "" && !l.startsWith("#") && !seen.has(l)) {
          seen.add(l);
          await (await fetch(new URL(l, media), { signal })).arrayBuffer();
        }
    } catch {
      if (signal.aborted) break;
    }
    await sleep(500);
  }
  return seen.size;
}

/** CPU seconds of `pid` over `seconds`. */
async function cpuOver(pid, seconds) {
  const c0 = cpuSeconds(pid);
  await sleep(seconds * 1000);
  return cpuSeconds(pid) - c0;
}

async function ffmpegReference(args) {
  const dir = mkdtempSync(join(tmpdir(), "svc-ts-bench-ff-"));
  // ffmpeg joins the live stream mid-GOP: its complaints about that are not the figure.
  const child = spawn("taskset", ["-c", CPU, "ffmpeg", "-loglevel", "quiet", ...args(dir)], {
    stdio: "ignore",
  });
  await sleep(5000);
  const cpu = await cpuOver(child.pid, SECONDS);
  child.kill("SIGKILL");
  return cpu;
}

// 0. floor: a bare Node process on the same core that only reads the live source and
//    drops the bytes (node:http, and fetch as the gateway's undici does): what any Node
//    reader of this stream costs before it segments anything.
const BARE_READERS = {
  http: (url) =>
    `require("node:http").get(${JSON.stringify(url)}, (res) => res.on("data", () => {}));`,
  fetch: (url) =>
    `(async () => { const r = (await fetch(${JSON.stringify(url)})).body.getReader(); while (!(await r.read()).done); })();`,
};
for (let round = 1; round <= (PHASES.has("floor") ? 2 : 0); round++) {
  for (const [name, code] of Object.entries(BARE_READERS)) {
    const child = spawn(
      "taskset",
      ["-c", CPU, process.execPath, "-e", code(`${ORIGIN}/live.ts?floor=${name}`)],
      {
        stdio: "ignore",
      },
    );
    await sleep(5000);
    const cpu = await cpuOver(child.pid, SECONDS);
    child.kill("SIGKILL");
    out({
      phase: "floor",
      round,
      reader: name,
      node_reader_cpu_pct: ((cpu / SECONDS) * 100).toFixed(2),
    });
  }
}

// 1. segmenter CPU, alternated twice.
for (let round = 1; round <= (PHASES.has("segmenter") ? 2 : 0); round++) {
  const gw = await gateway([tsChannel("seg")]);
  const ac = new AbortController();
  const viewer = hlsViewer(`${gw.url}/v1/play/seg`, ac.signal);
  await sleep(5000);
  const cpu = await cpuOver(gw.proc.pid, SECONDS);
  ac.abort();
  const segments = await viewer;
  await gw.stop();
  const hls = await ffmpegReference((dir) => [
    ...["-i", `${ORIGIN}/live.ts?ref=hls`, "-c", "copy", "-f", "hls", "-hls_time", "2"],
    ...["-hls_list_size", "6", "-hls_flags", "delete_segments", join(dir, "index.m3u8")],
  ]);
  const ts = await ffmpegReference(() => [
    ...["-i", `${ORIGIN}/live.ts?ref=ts`, "-c", "copy", "-f", "mpegts", "-y", "/dev/null"],
  ]);
  out({
    phase: "segmenter",
    round,
    gateway_cpu_pct: ((cpu / SECONDS) * 100).toFixed(2),
    hls_segments_fetched: segments,
    ffmpeg_hls_cpu_pct: ((hls / SECONDS) * 100).toFixed(2),
    ffmpeg_mpegts_cpu_pct: ((ts / SECONDS) * 100).toFixed(2),
    gateway_vs_ffmpeg_hls: (cpu / hls).toFixed(2),
    target: "gateway <= 0.5x ffmpeg -f hls",
  });
}

/** Source of a bare Node fan-out on `port`: one read of `source`, each chunk to every client. */
const bareFanout = (source, port) => `
const http = require("node:http");
const clients = new Set();
http.get(${JSON.stringify(source)}, (res) => res.on("data", (d) => { for (const c of clients) c.write(d); }));
http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "video/mp2t" });
  clients.add(res);
  res.on("close", () => clients.delete(res));
}).listen(${port}, "127.0.0.1", () => console.log("ready"));`;

/** `n` readers of `url` for `seconds`: bytes each read, and whether each stayed open. */
async function readers(url, n, seconds, onHalf) {
  const results = [];
  const reqs = [];
  for (let i = 0; i < n; i++) {
    const r = { bytes: 0, closedEarly: false, status: 0 };
    results.push(r);
    const req = get(url, { agent: false }, (res) => {
      r.status = res.statusCode;
      res.on("data", (d) => (r.bytes += d.length));
      res.on("end", () => (r.closedEarly = true));
    });
    req.on("error", () => (r.closedEarly = true));
    reqs.push(req);
    if (i === Math.floor(n / 2)) await onHalf?.();
  }
  const start = results.map((r) => r.bytes);
  await sleep(seconds * 1000);
  const got = results.map((r, i) => r.bytes - start[i]);
  for (const req of reqs) req.destroy();
  return { results, got };
}

// 2. viewers: the gateway's stream.ts, then nginx serving the file at the same rate.
const work = mkdtempSync(join(tmpdir(), "svc-ts-bench-nginx-"));
const www = join(work, "www");
mkdirSync(www);
writeFileSync(join(www, "live.ts"), source);
const expected = RATE * SECONDS;
for (let round = 1; round <= (PHASES.has("viewers") ? 2 : 0); round++) {
  const gw = await gateway([tsChannel("v")]);
  const url = `${gw.url}/v1/play/v/stream.ts`;
  // The session started and its first random-access point seen before the viewers come.
  await readers(url, 1, 4);
  const rss0 = rssMiB(gw.proc.pid);
  let rssHalf = 0;
  const c0 = cpuSeconds(gw.proc.pid);
  const run = readers(url, VIEWERS, SECONDS, async () => {
    await sleep(2000);
    rssHalf = rssMiB(gw.proc.pid);
  });
  await sleep(2000);
  const rssAll = rssMiB(gw.proc.pid);
  const { results, got } = await run;
  const cpu = cpuSeconds(gw.proc.pid) - c0;
  const total = got.reduce((a, b) => a + b, 0);
  const behind = got.filter((b) => b < 0.9 * expected).length;
  await gw.stop();

  const port = 20000 + Math.floor(Math.random() * 20000);
  const conf = writeNginxConf(join(work, `nginx-${round}`), {
    port,
    body: `root ${www};\n    limit_rate ${Math.round(RATE)};`,
  });
  const nginx = spawn(
    "taskset",
    ["-c", CPU, "nginx", "-c", conf, "-p", join(work, `nginx-${round}`)],
    {
      stdio: "ignore",
    },
  );
  await sleep(1000);
  const workers = spawnSync("pgrep", ["-P", String(nginx.pid)], { encoding: "utf8" })
    .stdout.trim()
    .split("\n")
    .filter((s) => s !== "")
    .map(Number);
  const nginxPids = [nginx.pid, ...workers];
  const nginxCpu = () => nginxPids.reduce((a, p) => a + cpuSeconds(p), 0);
  const n0 = nginxCpu();
  const ref = await readers(`http://127.0.0.1:${port}/live.ts`, VIEWERS, SECONDS);
  const nCpu = nginxCpu() - n0;
  const nTotal = ref.got.reduce((a, b) => a + b, 0);
  nginx.kill("SIGTERM");
  await sleep(500);

  // The floor of any Node fan-out: a bare node:http server that reads the source once and
  // writes each chunk it receives to every client (chunked, as stream.ts), nothing else.
  const floorPort = 20000 + Math.floor(Math.random() * 20000);
  const bare = spawn(
    "taskset",
    ["-c", CPU, process.execPath, "-e", bareFanout(`${ORIGIN}/live.ts?fanout=${round}`, floorPort)],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  await new Promise((resolve) => bare.stdout.once("data", resolve));
  const b0 = cpuSeconds(bare.pid);
  const floor = await readers(`http://127.0.0.1:${floorPort}/`, VIEWERS, SECONDS);
  const bCpu = cpuSeconds(bare.pid) - b0;
  const bTotal = floor.got.reduce((a, b) => a + b, 0);
  bare.kill("SIGKILL");

  const perGbit = (c, bytes) => c / ((bytes * 8) / 1e9);
  out({
    phase: "viewers",
    round,
    viewers: VIEWERS,
    gateway_statuses: [...new Set(results.map((r) => r.status))],
    gateway_viewers_behind: behind,
    gateway_closed_early: results.filter((r) => r.closedEarly).length,
    gateway_min_share_of_rate: (Math.min(...got) / expected).toFixed(3),
    gateway_max_share_of_rate: (Math.max(...got) / expected).toFixed(3),
    gateway_gbit_per_s: ((total * 8) / 1e9 / SECONDS).toFixed(3),
    gateway_cpu_pct: ((cpu / SECONDS) * 100).toFixed(1),
    gateway_cpu_s_per_gbit: perGbit(cpu, total).toFixed(3),
    nginx_gbit_per_s: ((nTotal * 8) / 1e9 / SECONDS).toFixed(3),
    nginx_cpu_pct: ((nCpu / SECONDS) * 100).toFixed(1),
    bare_node_fanout_gbit_per_s: ((bTotal * 8) / 1e9 / SECONDS).toFixed(3),
    bare_node_fanout_cpu_s_per_gbit: perGbit(bCpu, bTotal).toFixed(3),
    gateway_vs_bare_node_fanout: (perGbit(cpu, total) / perGbit(bCpu, bTotal)).toFixed(2),
    nginx_cpu_s_per_gbit: perGbit(nCpu, nTotal).toFixed(3),
    cpu_per_gbit_vs_nginx: (perGbit(cpu, total) / perGbit(nCpu, nTotal)).toFixed(2),
    rss_mib: { before: rss0.toFixed(1), half: rssHalf.toFixed(1), all: rssAll.toFixed(1) },
    rss_mib_per_100_viewers: (((rssAll - rss0) / VIEWERS) * 100).toFixed(1),
    target: "no viewer behind; CPU per Gbit/s within 2x nginx",
  });
}

/** ffmpeg on the live source: ms to its first `-f mpegts` byte and to its first HLS segment. */
async function ffmpegColdStart(i) {
  const t = performance.now();
  const firstByte = await new Promise((resolve) => {
    const child = spawn(
      "taskset",
      ["-c", CPU, "ffmpeg", "-loglevel", "quiet", "-i", `${ORIGIN}/live.ts?rs=${i}`].concat([
        "-c",
        "copy",
        "-f",
        "mpegts",
        "-",
      ]),
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    child.stdout.once("data", () => {
      resolve(performance.now() - t);
      child.kill("SIGKILL");
    });
    child.once("exit", () => resolve(Number.NaN));
  });
  const dir = mkdtempSync(join(tmpdir(), "svc-ts-bench-cold-"));
  const playlist = join(dir, "index.m3u8");
  const h = performance.now();
  const child = spawn(
    "taskset",
    ["-c", CPU, "ffmpeg", "-loglevel", "quiet", "-i", `${ORIGIN}/live.ts?rh=${i}`].concat([
      "-c",
      "copy",
      "-f",
      "hls",
      "-hls_time",
      "2",
      playlist,
    ]),
    { stdio: "ignore" },
  );
  let firstSegment = Number.NaN;
  while (performance.now() - h < 20_000) {
    const text = existsSync(playlist) ? readFileSync(playlist, "utf8") : "";
    if (text.split("\n").some((l) => l !== "" && !l.startsWith("#"))) {
      firstSegment = performance.now() - h;
      break;
    }
    await sleep(20);
  }
  child.kill("SIGKILL");
  return { firstByte, firstSegment };
}

// 3. cold start of channels never played.
if (PHASES.has("cold")) {
  const ids = [1, 2, 3, 4, 5];
  const gw = await gateway([
    ...ids.map((i) => tsChannel(`s${i}`, `?s=${i}`)),
    ...ids.map((i) => tsChannel(`h${i}`, `?h=${i}`)),
  ]);
  for (const i of ids) {
    const t = performance.now();
    const firstByte = await new Promise((resolve) => {
      const req = get(`${gw.url}/v1/play/s${i}/stream.ts`, (res) => {
        res.once("data", () => {
          resolve(performance.now() - t);
          req.destroy();
        });
      });
      req.on("error", () => resolve(Number.NaN));
    });
    const h = performance.now();
    const base = `${gw.url}/v1/play/h${i}`;
    const master = await (await fetch(`${base}/index.m3u8`)).text();
    const mediaUrl = new URL(
      master.split("\n").find((l) => l !== "" && !l.startsWith("#")),
      `${base}/index.m3u8`,
    );
    const mediaText = await (await fetch(mediaUrl)).text();
    const target = Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(mediaText)?.[1]);
    const first = mediaText.split("\n").find((l) => l !== "" && !l.startsWith("#"));
    await (await fetch(new URL(first, mediaUrl))).arrayBuffer();
    const firstSegment = performance.now() - h;
    const ref = await ffmpegColdStart(i);
    out({
      phase: "cold",
      channel: i,
      first_ts_byte_ms: firstByte.toFixed(0),
      first_hls_segment_ms: firstSegment.toFixed(0),
      ffmpeg_first_ts_byte_ms: ref.firstByte.toFixed(0),
      ffmpeg_first_hls_segment_ms: ref.firstSegment.toFixed(0),
      target_duration_s: target,
      target: "first byte < 1000 ms; first segment < target duration + 500 ms",
    });
  }
  await gw.stop();
}

out({
  origin_connections: Object.fromEntries(originConnections),
  source_size: statSync(media).size,
});
origin.close();
process.exit(0);
