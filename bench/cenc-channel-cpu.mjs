#!/usr/bin/env node
/**
 * CPU per ClearKey-encrypted live DASH channel: the lite gateway's native engine against one
 * ffmpeg per channel running the compatibility engine's argv (`buildFfmpegArgs`: `-cenc_decryption_key
 * KEY -i MPD -c copy -f hls …`), side by side in the same measured windows, on the same
 * pre-encrypted live source (`cenc-live-origin.mjs`). Loopback only; not part of `npm test`.
 *
 *   npx pnpm@10.34.9 exec turbo run build
 *   node bench/cenc-channel-cpu.mjs [--seconds 40] [--warmup 10] [--channels 1,4,8]
 *     [--height 720] [--kbps 3000] [--mpd timeline|duration] [--window 5] [--clear-control]
 *     [--ffmpeg-loglevel error] [--no-low-latency] [--variants cenc,clear] [--viewer]
 *     [--cpu-prof DIR] [--node-args "FLAGS"] [--node-floor] [--gateway-out FILE]
 *     [--no-ffmpeg] [--pin-cpu N]
 *
 * CPU is utime + stime of each process from /proc/<pid>/stat over the window. The gateway's
 * figure is the whole Node process; an idle gateway with no channel runs through the whole
 * run and is measured in the same windows, and its CPU is subtracted before dividing by N.
 * `--clear-control` runs, in the same windows, a second gateway and N more ffmpegs on the same
 * media served in the clear: the difference is what decryption costs each engine.
 * `--variants clear` measures the clear stream alone (the packager without decryption).
 * `--viewer`: from the start of the warm-up, one LL-HLS viewer per gateway channel follows its
 * video and audio playlists part by part (`ll-hls-viewer.mjs`): the channel is packaged and
 * played; the window measures it played, after the viewer's own start.
 * `--cpu-prof DIR`: the measured gateways run with `node --cpu-prof` (profiles in DIR).
 * `--gateway-out FILE`: what each measured gateway printed (stdout, then stderr), written to
 * FILE.<variant> after the window's output checks, also when a check fails; with
 * `--node-args "--trace-gc"`, its collections.
 * `--no-ffmpeg`: no ffmpeg consumers (channels per core: 25 or 50 channels, where one ffmpeg
 * per channel would take the machine; its columns print n/a).
 * `--pin-cpu N`: every measured gateway (every thread) runs on CPU N only (`taskset`), so its
 * CPU figure is what one core gives; the origin, viewers and ffmpegs stay off that core
 * (this process is moved to the other CPUs).
 * With `--viewer`, each viewer also times the parts against the media's pace: a part that
 * appears more than 500 ms behind it is "late" (per segment, at its last part: `ll-hls-viewer.mjs`).
 * `--node-floor`: per channel also one `dash-node-floor.mjs`, the least a Node process does to
 * move the channel from the origin to disk (what ffmpeg does here), measured in the same
 * windows: a lower bound for any Node packager of the channel.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildFfmpegArgs } from "../packages/playback/dist/sessions/ffmpeg/ffmpeg-args.js";
import { startGateway } from "../tests/dist/harness/gateway-process.js";
import { mdatHash } from "../tests/dist/harness/media-probe.js";
import { authSection } from "../tests/dist/harness/users.js";
import { fmt, printTable, report } from "./cenc-channel-report.mjs";
import { startCencOrigin } from "./cenc-live-origin.mjs";
import { prepareLoop } from "./cenc-loop.mjs";
import {
  channelPlaylists,
  verifyFfmpegOutput,
  verifyGatewayChannel,
  videoPlaylist,
} from "./cenc-output-checks.mjs";
import { followLlHls } from "./ll-hls-viewer.mjs";
import { CLK_TCK, cpuSeconds } from "./proc-cpu.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const SECONDS = Number(arg("seconds", "40"));
const WARMUP = Number(arg("warmup", "10"));
const CHANNELS = arg("channels", "1,4,8").split(",").map(Number);
const HEIGHT = Number(arg("height", "720"));
const KBPS = Number(arg("kbps", "3000"));
const MPD_MODE = arg("mpd", "timeline");
const WINDOW = Number(arg("window", "5"));
/** Replaces the engine's `-loglevel warning` (see the docs on ffmpeg 5.1's warnings). */
const FFMPEG_LOGLEVEL = arg("ffmpeg-loglevel", "");
/** `media.low_latency: false`: the native engine publishes whole segments, no LL-HLS parts. */
const LOW_LATENCY = !process.argv.includes("--no-low-latency");
const VARIANTS = arg(
  "variants",
  process.argv.includes("--clear-control") ? "cenc,clear" : "cenc",
).split(",");
const VIEWER = process.argv.includes("--viewer");
const NO_FFMPEG = process.argv.includes("--no-ffmpeg");
const PIN_CPU = arg("pin-cpu", "");
const NODE_FLOOR = process.argv.includes("--node-floor");
const CPU_PROF = arg("cpu-prof", "");
const GATEWAY_OUT = arg("gateway-out", "");
/** Extra node flags for the measured gateways, e.g. "--max-semi-space-size=1". */
const NODE_ARGS = arg("node-args", "")
  .split(" ")
  .filter((a) => a !== "");
const LOOP_SEC = 24;
const KID = "00112233445566778899aabbccddeeff";
const KEY = "0f0e0d0c0b0a09080706050403020100";

const work = mkdtempSync(join(tmpdir(), "svc-bench-cenc-cpu-"));
const children = new Set();
const gateways = new Set();
let origin;

function track(child) {
  children.add(child);
  child.once("exit", () => children.delete(child));
}

async function cleanup() {
  for (const c of children) c.kill("SIGKILL");
  await Promise.all([...gateways].map((g) => g.stop()));
  await origin?.stop();
  rmSync(work, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping every process the bench started\n`);
    for (const g of gateways) g.proc.kill("SIGKILL");
    void cleanup().finally(() => process.exit(130));
  });
}

/** The `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal (ticks). */
function hostTicks() {
  return readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every thread of `pid` onto `cpus` (a taskset list). */
function pin(pid, cpus) {
  const r = spawnSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`taskset ${pid}: ${r.stderr}`);
}

if (PIN_CPU !== "") {
  // This process (origin, viewers) and its children off the gateways' core.
  const others = cpus()
    .map((_, i) => i)
    .filter((i) => String(i) !== PIN_CPU);
  if (others.length > 0) pin(process.pid, others.join(","));
}

function gatewayConfig(channels) {
  return {
    auth: authSection(),
    security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
    media: { idle_stop_sec: 86_400, low_latency: LOW_LATENCY },
    channels,
  };
}

/** Until `check` answers true or the deadline passes. */
async function until(what, check, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch (e) {
      if (e.fatal) throw e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

/** A consumer child writing to `dir`: its stderr line count and last 2,000 characters. */
function watched(child, dir) {
  track(child);
  const f = { child, dir, stderrLines: 0, stderr: "" };
  child.stderr.setEncoding("utf8").on("data", (d) => {
    f.stderrLines += d.split("\n").filter((l) => l.trim() !== "").length;
    f.stderr = (f.stderr + d).slice(-2000);
  });
  return f;
}

/** One gateway with N always-on channels and N ffmpegs, on the encrypted or the clear stream. */
async function startConsumers(n, variant) {
  const clear = variant === "clear";
  const tag = `n${n}-${variant}`;
  const channels = Array.from({ length: n }, (_, i) => ({
    id: `c${i + 1}`,
    title: `c${i + 1}`,
    ingress: "dash",
    engine: "native",
    source_url: origin.url(`${tag}-gw${i + 1}`, clear),
    ...(clear ? {} : { keys: { [KID]: KEY } }),
    autostart: true,
    on_demand: false,
  }));
  const nodeArgs = [
    ...NODE_ARGS,
    ...(CPU_PROF === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`]),
  ];
  const gw = await startGateway("lite", gatewayConfig(channels), { nodeArgs });
  gateways.add(gw);
  if (PIN_CPU !== "") pin(gw.proc.pid, PIN_CPU);
  const ffmpegs = (NO_FFMPEG ? [] : channels).map((_, i) => {
    const dir = join(work, `${tag}-ff${i + 1}`);
    mkdirSync(dir);
    const source = {
      url: origin.url(`${tag}-ff${i + 1}`, clear),
      ...(clear ? {} : { decryptionKey: KEY }),
    };
    const args = buildFfmpegArgs(source, dir, 0);
    if (!args.ok) throw new Error(args.error);
    if (FFMPEG_LOGLEVEL !== "") args.value[args.value.indexOf("-loglevel") + 1] = FFMPEG_LOGLEVEL;
    const child = spawn("ffmpeg", args.value, { stdio: ["ignore", "ignore", "pipe"] });
    return watched(child, dir);
  });
  const floors = NODE_FLOOR
    ? channels.map((_, i) => {
        const dir = join(work, `${tag}-nf${i + 1}`);
        mkdirSync(dir);
        const child = spawn(
          process.execPath,
          [
            fileURLToPath(new URL("./dash-node-floor.mjs", import.meta.url)),
            origin.url(`${tag}-nf${i + 1}`, clear),
            dir,
          ],
          { stdio: ["ignore", "ignore", "pipe"] },
        );
        return watched(child, dir);
      })
    : [];
  return { variant, tag, n, gw, channels, ffmpegs, floors };
}

async function waitUntilPublishing(set) {
  for (const c of set.channels) {
    await until(`gateway channel ${set.tag}/${c.id}`, async () =>
      (await (await fetch(await videoPlaylist(set.gw, c.id))).text()).includes("#EXTINF"),
    );
  }
  for (const f of set.ffmpegs) {
    await until(`ffmpeg ${f.dir}`, () => {
      if (f.child.exitCode !== null)
        throw Object.assign(new Error(`ffmpeg exited: ${f.stderr}`), { fatal: true });
      // The media playlist (index.m3u8 is the master the compatibility engine writes over it).
      const p = join(f.dir, "media-0.m3u8");
      return existsSync(p) && readFileSync(p, "utf8").includes("#EXTINF");
    });
  }
  for (const f of set.floors) {
    await until(`node floor ${f.dir}`, () => {
      if (f.child.exitCode !== null)
        throw Object.assign(new Error(`node floor exited: ${f.stderr}`), { fatal: true });
      return readdirSync(f.dir).some((name) => name.endsWith(".m4s"));
    });
  }
}

function snapshot(sets, idle) {
  return {
    at: performance.now(),
    idle: cpuSeconds(idle.proc.pid),
    host: hostTicks(),
    self: process.cpuUsage(),
    bytes: origin.counters(),
    sets: sets.map((s) => ({
      gw: cpuSeconds(s.gw.proc.pid),
      gwOut: s.gw.stdout().length,
      ff: s.ffmpegs.map((f) => cpuSeconds(f.child.pid)),
      nf: s.floors.map((f) => cpuSeconds(f.child.pid)),
      stderrLines: s.ffmpegs.map((f) => f.stderrLines),
    })),
  };
}

/** What one gateway and its N ffmpegs did in the window, and whether their output is right. */
async function measureSet(set, i, before, after, wall, loop) {
  const b = before.sets[i];
  const a = after.sets[i];
  const delta = (consumer, field) =>
    (after.bytes.get(consumer)?.[field] ?? 0) - (before.bytes.get(consumer)?.[field] ?? 0);
  const fetched = (consumer) => delta(consumer, "media");
  const notFound = (who) =>
    set.channels.reduce((n, _, k) => n + delta(`${set.tag}-${who}${k + 1}`, "notFound"), 0);
  // The lite build has no /v1/status: the native engine shows as LL-HLS parts, and the
  // compatibility engine would run as an ffmpeg child of the gateway.
  const pid = set.gw.proc.pid;
  const gwChildren = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  const gwChecks = [];
  let parts = 0;
  const gwOut = () => `${set.gw.stdout()}\n${set.gw.stderr()}`;
  try {
    for (const c of set.channels) {
      const checked = await verifyGatewayChannel(set.gw, c.id, loop.clearHashes);
      parts += checked.parts ? 1 : 0;
      gwChecks.push(...checked.renditions);
    }
  } finally {
    // Written even when a check fails: the gateway's output says why.
    if (GATEWAY_OUT !== "") writeFileSync(`${GATEWAY_OUT}.${set.variant}`, gwOut());
  }
  const gwLog = gwOut()
    .split("\n")
    .filter((l) => /"level":(40|50|60)/.test(l));
  return {
    variant: set.variant,
    n: set.n,
    wall,
    gc: gcSummary(set.gw.stdout().slice(b.gwOut, a.gwOut)),
    gwCpu: a.gw - b.gw,
    idleCpu: after.idle - before.idle,
    ffCpu: a.ff.map((v, k) => v - b.ff[k]),
    nfCpu: a.nf.map((v, k) => v - b.nf[k]),
    nfBytes: set.floors.map((_, k) => fetched(`${set.tag}-nf${k + 1}`)),
    nfExited: set.floors.filter((f) => f.child.exitCode !== null).length,
    gwBytes: set.channels.map((_, k) => fetched(`${set.tag}-gw${k + 1}`)),
    ffBytes: set.channels.map((_, k) => fetched(`${set.tag}-ff${k + 1}`)),
    notFound: { gw: notFound("gw"), ff: notFound("ff") },
    ffStderrLines: a.stderrLines.map((v, k) => v - b.stderrLines[k]),
    ffStderrTail: set.ffmpegs[0]?.stderr ?? "",
    ffExited: set.ffmpegs.filter((f) => f.child.exitCode !== null).length,
    gwChildren,
    parts,
    gwLog,
    gwChecks,
    ffChecks: set.ffmpegs.map((f) => verifyFfmpegOutput(f.dir)),
  };
}

/**
 * Collections V8 printed in the window when the gateway runs with `--node-args
 * --trace-gc`: count and pause milliseconds per kind (Scavenge, Mark-Compact, ...).
 */
function gcSummary(out) {
  const kinds = {};
  for (const m of out.matchAll(
    /ms: ([A-Za-z-]+)[^,]*, ([\d.]+) \/ [\d.]+ ms.*mu = [\d.]+\) ([^;\n]*)/g,
  )) {
    const key = `${m[1]} (${m[3].trim()})`;
    const k = kinds[key] ?? { count: 0, ms: 0 };
    kinds[key] = k;
    k.count += 1;
    k.ms += Number(m[2]);
  }
  return kinds;
}

async function stopConsumers(set) {
  for (const f of set.floors) f.child.kill("SIGKILL");
  for (const f of set.ffmpegs) {
    if (f.child.exitCode !== null) continue;
    const gone = new Promise((r) => f.child.once("exit", r));
    f.child.kill("SIGTERM");
    await Promise.race([gone, sleep(5000)]);
    f.child.kill("SIGKILL");
  }
  await set.gw.stop();
  gateways.delete(set.gw);
}

async function phase(n, loop, idle) {
  const sets = [];
  try {
    for (const v of VARIANTS) sets.push(await startConsumers(n, v));
    for (const s of sets) await waitUntilPublishing(s);
    // The viewers start with the warm-up: the window measures a channel that is played,
    // not the first seconds of its viewer (new connections, the serving code compiled).
    // One player per channel, each from a loopback address of its own (127.0.1.1, …): the
    // gateway's parking limit is per client address (`ll-hls-viewer.mjs`).
    const viewers = [];
    let player = 0;
    if (VIEWER)
      for (const s of sets)
        for (const c of s.channels) {
          player += 1;
          const localAddress = `127.0.${1 + Math.floor(player / 250)}.${1 + (player % 250)}`;
          for (const url of (await channelPlaylists(s.gw, c.id)).slice(0, 2))
            viewers.push(followLlHls(url, { localAddress }));
        }
    await sleep(WARMUP * 1000);
    // Lateness is counted in the window only.
    for (const v of viewers) v.stats.maxLateMs = 0;
    const watchedBefore = viewers.map((v) => ({ ...v.stats }));
    const before = snapshot(sets, idle);
    await sleep(SECONDS * 1000);
    const after = snapshot(sets, idle);
    await Promise.all(viewers.map((v) => v.stop()));
    if (VIEWER) {
      const kinds = {};
      for (const v of viewers)
        for (const [k, n] of Object.entries(v.errorKinds)) kinds[k] = (kinds[k] ?? 0) + n;
      if (Object.keys(kinds).length > 0)
        process.stdout.write(`viewer errors by kind (whole run): ${JSON.stringify(kinds)}\n`);
      const inWindow = (key) =>
        viewers.reduce((n, v, i) => n + v.stats[key] - watchedBefore[i][key], 0);
      process.stdout.write(
        `viewers (in the window): ${viewers.length} playlists followed, ${inWindow("parts")} parts fetched, ${inWindow("reloads")} blocking reloads, ${inWindow("errors")} errors; segments whose parts came more than 500 ms behind pace: ${inWindow("late")}, most behind pace ${Math.max(0, ...viewers.map((v) => v.stats.maxLateMs)).toFixed(0)} ms\n`,
      );
    }
    const wall = (after.at - before.at) / 1000;
    const host = after.host.map((v, i) => v - before.host[i]);
    const hostTotal = host.reduce((x, y) => x + y, 0);
    const self = process.cpuUsage(before.self);
    const results = [];
    for (const [i, s] of sets.entries())
      results.push(await measureSet(s, i, before, after, wall, loop));
    return {
      n,
      wall,
      results,
      stealPct: (100 * host[7]) / hostTotal,
      idlePct: (100 * (host[3] + host[4])) / hostTotal,
      load: loadavg()[0],
      originPct: (100 * (self.user + self.system)) / 1e6 / wall,
    };
  } finally {
    for (const s of sets) await stopConsumers(s);
  }
}

async function main() {
  const t0 = Date.now();
  process.stdout.write(
    `cenc-channel-cpu ${new Date().toISOString()}: ${cpus().length} vCPU (${cpus()[0]?.model}), node ${process.version}, CLK_TCK ${CLK_TCK}\n` +
      `args: ${process.argv.slice(2).join(" ") || "(defaults)"}\n` +
      `source: ${LOOP_SEC} s loop of ${HEIGHT}p25 at ${KBPS} kbit/s + AAC 128 kbit/s, cenc ClearKey, 2 s segments of 4 chunks, MPD ${MPD_MODE}${MPD_MODE === "timeline" ? ` (window ${WINDOW})` : ""}\n` +
      `windows: ${SECONDS} s after ${WARMUP} s warm-up; channels ${CHANNELS.join(", ")}; ${VARIANTS.join(" + ")}; LL-HLS ${LOW_LATENCY ? "on" : "off"}; viewer ${VIEWER ? "one LL-HLS viewer per channel" : "none"}\n`,
  );
  // The idle gateway starts first: by the first window its start-up garbage is collected
  // (started later, the collections after start-up fell in the window and were subtracted
  // from the measured gateways as if they were a gateway's idle cost).
  const idle = await startGateway("lite", gatewayConfig([]));
  gateways.add(idle);
  mkdirSync(join(work, "loop"));
  const loop = await prepareLoop(
    { dir: join(work, "loop"), height: HEIGHT, kbps: KBPS, loopSec: LOOP_SEC, kid: KID, key: KEY },
    track,
  );
  // What a decrypting consumer must publish: the mdat payloads of the clear loop segments.
  loop.clearHashes = new Set(loop.reps.flatMap((r) => r.clear.map(mdatHash)));
  process.stdout.write(
    `loop encoded and encrypted in ${fmt((Date.now() - t0) / 1000)} s: ${fmt(loop.bytesPerSec / 1e3)} kB/s of media\n`,
  );
  origin = await startCencOrigin(loop, { mpd: MPD_MODE, window: WINDOW });
  const phases = [];
  for (const n of CHANNELS) {
    const p = await phase(n, loop, idle);
    report(p, loop);
    phases.push(p);
  }
  printTable(phases);
  process.stdout.write(
    `CPU in % of one core over each window. Total run ${fmt((Date.now() - t0) / 1000)} s.\n`,
  );
}

try {
  await main();
} finally {
  await cleanup();
}
