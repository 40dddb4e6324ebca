/**
 * The native DASH engine against `ffmpeg -i MPD -c copy -f hls` on the same live source,
 * in one run: CPU time and RSS of each over a measured window, and the live-edge delay of
 * the gateway's published parts behind the source's own chunks. Loopback only.
 *
 *   npm run build && node bench/dash-engine.mjs [seconds=60]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChunkAssembler } from "../packages/playback/dist/dash/segmenter/chunk-assembler.js";
import { startDashLiveSource } from "../tests/dist/harness/dash-live-source.js";
import { startGateway } from "../tests/dist/harness/gateway-process.js";
import { authSection } from "../tests/dist/harness/users.js";

const SECONDS = Number(process.argv[2] ?? 60);
const WARMUP_MS = 8_000;
const DELAY_SECONDS = 30;
const TICKS = 100; // USER_HZ on Linux

/** utime + stime of a process (and its waited-for children), in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // Fields after "(comm) ": state is [0]; utime [11], stime [12], cutime [13], cstime [14].
  const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  return (ticks * 1000) / TICKS;
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
}

/**
 * Watches the source's segment files of one representation and records when each CMAF
 * chunk (`moof`+`mdat`) of segment N is completely on disk: key `N.i`.
 */
function watchSourceChunks(dir, rep, seen) {
  let stopped = false;
  const state = new Map();
  const name = (n) => join(dir, `chunk-stream${rep}-${String(n).padStart(5, "0")}.m4s`);
  const buf = Buffer.alloc(1 << 20);
  void (async () => {
    // Start at the newest file: ffmpeg deletes segments that left its window.
    let current = Math.max(
      1,
      ...readdirSync(dir)
        .map((f) => new RegExp(`^chunk-stream${rep}-(\\d+)\\.m4s`).exec(f)?.[1])
        .filter((x) => x !== undefined)
        .map(Number),
    );
    while (!stopped) {
      for (const n of [current, current + 1]) {
        let file = `${name(n)}.tmp`;
        try {
          statSync(file);
        } catch {
          file = name(n);
        }
        let handle;
        try {
          handle = await open(file, "r");
          const s = state.get(n) ?? {
            offset: 0,
            assembler: new ChunkAssembler(64 << 20),
            count: 0,
          };
          state.set(n, s);
          for (;;) {
            const { bytesRead } = await handle.read(buf, 0, buf.length, s.offset);
            if (bytesRead === 0) break;
            s.offset += bytesRead;
            const r = s.assembler.push(Buffer.from(buf.subarray(0, bytesRead)));
            if (!r.ok) break;
            for (const _ of r.value) seen.set(`${n}.${s.count++}`, Date.now());
          }
          if (n > current && s.count > 0) current = n;
        } catch {
          // not written yet
        } finally {
          await handle?.close();
        }
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return () => {
    stopped = true;
  };
}

/** Follows the gateway's video playlist part by part with blocking reloads (a LL-HLS player). */
function followParts(playlistUrl, seen) {
  let stopped = false;
  void (async () => {
    let text = await (await fetch(playlistUrl)).text();
    while (!stopped) {
      const hint = /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="v0-(\d+)\.(\d+)\.m4s/.exec(text);
      if (!hint) break;
      const r = await fetch(`${playlistUrl}&_HLS_msn=${hint[1]}&_HLS_part=${hint[2]}`);
      text = await r.text();
      const now = Date.now();
      for (const m of text.matchAll(/#EXT-X-PART:[^\n]*URI="v0-(\d+)\.(\d+)\.m4s/g)) {
        const key = `${m[1]}.${m[2]}`;
        if (!seen.has(key)) seen.set(key, now);
      }
    }
  })();
  return () => {
    stopped = true;
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const src = await startDashLiveSource({ durationSec: SECONDS + 60 });
await src.waitForSegments(3);
const gw = await startGateway("lite", {
  auth: authSection(),
  security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
  media: { idle_stop_sec: 600 },
  channels: [{ id: "bench", title: "bench", ingress: "dash", source_url: src.mpdUrl }],
});
const master = await (await fetch(`${gw.url}/v1/play/bench/index.m3u8`)).text();
const videoUrl = master.split("\n").find((l) => l.includes("/live/v0.m3u8"));

const out = mkdtempSync(join(tmpdir(), "bench-ffmpeg-hls-"));
const ffmpeg = spawn(
  "ffmpeg",
  [
    ...["-hide_banner", "-loglevel", "error", "-nostdin", "-i", src.mpdUrl, "-c", "copy"],
    ...["-f", "hls", "-hls_time", "2", "-hls_list_size", "6", "-hls_segment_type", "fmp4"],
    ...["-hls_flags", "delete_segments", join(out, "index.m3u8")],
  ],
  { stdio: ["ignore", "ignore", "inherit"] },
);

await new Promise((r) => setTimeout(r, WARMUP_MS));
const gwPid = gw.proc.pid;
const ffPid = ffmpeg.pid;
const cpu0 = { gw: cpuMs(gwPid), ff: cpuMs(ffPid) };
const rss = { gw: [], ff: [] };
const started = Date.now();
while (Date.now() - started < SECONDS * 1000) {
  await new Promise((r) => setTimeout(r, 1000));
  rss.gw.push(rssMiB(gwPid));
  rss.ff.push(rssMiB(ffPid));
}
const elapsed = Date.now() - started;
const cpu1 = { gw: cpuMs(gwPid), ff: cpuMs(ffPid) };

// Phase 2: one LL-HLS viewer following part by part, for the live-edge delay.
const sourceChunks = new Map();
const publishedParts = new Map();
// The gateway publishes representation 0 (the largest picture) as v0.
const stopWatch = watchSourceChunks(src.dir, "0", sourceChunks);
const stopFollow = followParts(videoUrl, publishedParts);
const followed = Date.now();
const cpu2 = cpuMs(gwPid);
await new Promise((r) => setTimeout(r, DELAY_SECONDS * 1000));
const viewerCpu = cpuMs(gwPid) - cpu2;
const viewerElapsed = Date.now() - followed;
stopFollow();
stopWatch();

const delays = [];
for (const [key, at] of publishedParts) {
  const wrote = sourceChunks.get(key);
  if (wrote !== undefined && at >= followed + 2000) delays.push(at - wrote);
}
delays.sort((a, b) => a - b);
const status = gw.stdout();
ffmpeg.kill("SIGKILL");
await gw.stop();
await src.stop();
rmSync(out, { recursive: true, force: true });

const share = (ms) => ((ms / elapsed) * 100).toFixed(1);
const max = (xs) => Math.max(...xs).toFixed(1);
const last = (xs) => (xs.at(-1) ?? 0).toFixed(1);
const gwCpu = cpu1.gw - cpu0.gw;
const ffCpu = cpu1.ff - cpu0.ff;
process.stdout.write(
  [
    `CPU window: ${(elapsed / 1000).toFixed(1)} s after ${WARMUP_MS / 1000} s warm-up, no viewer; 1 video (640x360) + 1 audio rendition each`,
    `native engine (lite gateway, whole process): CPU ${gwCpu.toFixed(0)} ms (${share(gwCpu)} % of one core), RSS max ${max(rss.gw)} MiB, end ${last(rss.gw)} MiB`,
    `ffmpeg -c copy -f hls:                       CPU ${ffCpu.toFixed(0)} ms (${share(ffCpu)} % of one core), RSS max ${max(rss.ff)} MiB, end ${last(rss.ff)} MiB`,
    `CPU ratio native/ffmpeg: ${(gwCpu / ffCpu).toFixed(2)}`,
    `then ${(viewerElapsed / 1000).toFixed(0)} s with one LL-HLS viewer (blocking reload per part): native engine CPU ${((viewerCpu / viewerElapsed) * 100).toFixed(1)} % of one core`,
    `live-edge delay, part published (blocking reload returns) minus chunk complete on the origin's disk, ${delays.length} parts: ` +
      `median ${percentile(delays, 50)} ms, p95 ${percentile(delays, 95)} ms, max ${delays.at(-1)} ms (part duration 520 ms)`,
    status.includes("error") ? "gateway printed errors" : "",
  ].join("\n") + "\n",
);
