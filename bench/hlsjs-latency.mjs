#!/usr/bin/env node
/**
 * hls.js 1.7 (`lowLatencyMode: true`) in headless Chromium against a DASH channel of the lite
 * gateway, fed by a loopback LL-DASH source (ffmpeg `-f dash -ldash 1 -streaming 1
 * -seg_duration 1 -frag_type every_frame`): samples `hls.latency` once a second and counts
 * the errors hls.js reports (load timeouts above all), with the gateway's CPU (utime + stime)
 * and the requests the player made (Resource Timing) over the same window. hls.js is served
 * from the tests' node_modules (devDependency), never from a CDN. Loopback only; not part of
 * `npm test`.
 *
 *   npx pnpm@10.34.9 exec turbo run build
 *   node bench/hlsjs-latency.mjs [--seconds 30] [--warmup 10] [--part-target-ms 333]
 *     [--seg 1] [--gop 25] [--hlsjs '{"maxLiveSyncPlaybackRate":1.2}']
 *
 * `--part-target-ms` is the gateway's `media.part_target_ms`; `--gop` the source's key-frame
 * interval in frames (25 fps); `--hlsjs` extra hls.js settings as JSON (the default run uses
 * hls.js's own defaults apart from `lowLatencyMode`).
 */
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { startDashLiveSource } from "../tests/dist/harness/dash-live-source.js";
import { startGateway } from "../tests/dist/harness/gateway-process.js";
import { CHROMIUM_ARGS, startHlsJsPage } from "../tests/dist/harness/hlsjs-page.js";
import { authSection } from "../tests/dist/harness/users.js";
import { cpuSeconds } from "./proc-cpu.mjs";

// playwright-core is the tests' devDependency (as hls.js is): resolved from there.
const { chromium } = createRequire(new URL("../tests/package.json", import.meta.url))(
  "playwright-core",
);

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const SECONDS = Number(arg("seconds", "30"));
const WARMUP = Number(arg("warmup", "10"));
const PART_TARGET_MS = Number(arg("part-target-ms", "333"));
const SEG = Number(arg("seg", "1"));
const GOP = Number(arg("gop", "25"));
const HLSJS = arg("hlsjs", "{}");

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

process.stdout.write(
  `hlsjs-latency ${new Date().toISOString()}: load average ${loadavg()[0].toFixed(2)}; source ${SEG} s segments, one frame per chunk, GOP ${GOP} frames; media.part_target_ms ${PART_TARGET_MS}; hls.js settings ${HLSJS}\n`,
);
const page = await startHlsJsPage();
const src = await startDashLiveSource({
  heights: [360],
  languages: ["eng"],
  segDurationSec: SEG,
  everyFrame: true,
  gop: GOP,
  durationSec: WARMUP + SECONDS + 120,
});
let gw;
let browser;
try {
  await src.waitForSegments(3);
  gw = await startGateway("lite", {
    auth: authSection(),
    security: {
      allowed_hosts: ["127.0.0.1"],
      play_require_auth: false,
      cors_origins: [page.origin],
    },
    media: { part_target_ms: PART_TARGET_MS, idle_stop_sec: 600 },
    channels: [{ id: "ll", title: "ll", ingress: "dash", source_url: src.mpdUrl }],
  });
  const master = `${gw.url}/v1/play/ll/index.m3u8`;
  const variant = (await (await fetch(master)).text())
    .split("\n")
    .find((l) => l.includes("v0.m3u8"));
  const media = await (await fetch(new URL(variant, master))).text();
  process.stdout.write(
    `gateway: ${/#EXT-X-PART-INF:.*/.exec(media)?.[0]} ${/#EXT-X-SERVER-CONTROL:.*/.exec(media)?.[0]}\n`,
  );
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const tab = await browser.newPage();
  // Resource Timing keeps 250 entries by default: room for every request of the run.
  await tab.addInitScript("performance.setResourceTimingBufferSize(1000000)");
  await tab.goto(
    `${page.origin}/?src=${encodeURIComponent(master)}&cfg=${encodeURIComponent(HLSJS)}`,
  );
  await tab.waitForFunction("window.probe().t > 0 || window.fatal !== null", undefined, {
    timeout: 60_000,
  });
  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  const probe = () => tab.evaluate("window.probe()");
  const before = await probe();
  const requests = () => tab.evaluate('performance.getEntriesByType("resource").length');
  const requestsBefore = await requests();
  const cpuBefore = cpuSeconds(gw.proc.pid);
  const latencies = [];
  for (let i = 0; i < SECONDS; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const p = await probe();
    if (p.fatal) throw new Error(`hls.js fatal error: ${p.fatal}`);
    latencies.push(p.latency);
  }
  const after = await probe();
  const cpu = cpuSeconds(gw.proc.pid) - cpuBefore;
  const requestCount = (await requests()) - requestsBefore;
  const counts = {};
  for (const [k, v] of Object.entries(after.errorCounts))
    counts[k] = v - (before.errorCounts[k] ?? 0);
  const timeouts = Object.entries(counts)
    .filter(([k]) => /TimeOut/i.test(k))
    .reduce((n, [, v]) => n + v, 0);
  const sorted = [...latencies].sort((a, b) => a - b);
  process.stdout.write(
    [
      `played ${(after.t - before.t).toFixed(1)} s of media in the ${SECONDS} s window (after ${WARMUP} s of playback)`,
      `hls.latency: median ${percentile(sorted, 50).toFixed(2)} s, min ${sorted[0].toFixed(2)} s, max ${sorted.at(-1).toFixed(2)} s (target <= 1.5 s)`,
      `gateway: ${((100 * cpu) / SECONDS).toFixed(2)} % of a core; the player made ${(requestCount / SECONDS).toFixed(1)} requests a second`,
      `errors in the window: ${JSON.stringify(counts)}; load timeouts: ${timeouts} (target 0); since start: ${JSON.stringify(after.errorCounts)}`,
    ].join("\n") + "\n",
  );
} finally {
  await browser?.close();
  await gw?.stop();
  await src.stop();
  await page.close();
}
