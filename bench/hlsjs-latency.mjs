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
 *     [--seg 1] [--gop 25] [--hlsjs '{"maxLiveSyncPlaybackRate":1.2}'] [--trace FILE]
 *     [--startup FILE] [--debug-log FILE] [--join-after S]
 *
 * `--part-target-ms` is the gateway's `media.part_target_ms`; `--gop` the source's key-frame
 * interval in frames (25 fps); `--hlsjs` extra hls.js settings as JSON (the default run uses
 * hls.js's own defaults apart from `lowLatencyMode`). `--trace FILE` writes one JSON line per
 * event, time-ordered: every media playlist request the page made (URL directives
 * `_HLS_msn/_HLS_part/_HLS_skip`, sent, first byte, end, status or failure), every hls.js
 * error with its time and URL, and the gateway's own `SVC_LLHLS_TRACE` lines (parts and
 * segments published, each playlist request's edge on arrival and answer and its decision,
 * the event loop's delay each second). `--startup FILE` turns on hls.js's debug log and writes
 * its lines of the first 8 s of the page, each with its time since the page opened, with the
 * video element's first `playing` event and `hls.latency` then: where hls.js set its start
 * position against the live edge, and how long it took to play from there. `--debug-log FILE`
 * writes hls.js's whole debug log of the run the same way (its stalls in context).
 * `--join-after S` starts the player S seconds after the channel's first playlist request.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { startDashLiveSource } from "../tests/dist/harness/dash-live-source.js";
import { startGateway } from "../tests/dist/harness/gateway-process.js";
import { launchChromium, startHlsJsPage } from "../tests/dist/harness/hlsjs-page.js";
import { authSection } from "../tests/dist/harness/users.js";
import { cpuSeconds } from "./proc-cpu.mjs";

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
const TRACE = arg("trace", undefined);
const STARTUP = arg("startup", undefined);
const DEBUG_LOG = arg("debug-log", undefined);
const JOIN_AFTER = Number(arg("join-after", "0"));

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
  gw = await startGateway(
    "lite",
    {
      auth: authSection(),
      security: {
        allowed_hosts: ["127.0.0.1"],
        play_require_auth: false,
        cors_origins: [page.origin],
      },
      media: { part_target_ms: PART_TARGET_MS, idle_stop_sec: 600 },
      channels: [{ id: "ll", title: "ll", ingress: "dash", source_url: src.mpdUrl }],
    },
    TRACE ? { env: { SVC_LLHLS_TRACE: "1" } } : {},
  );
  const master = `${gw.url}/v1/play/ll/index.m3u8`;
  const variant = (await (await fetch(master)).text())
    .split("\n")
    .find((l) => l.includes("v0.m3u8"));
  const media = await (await fetch(new URL(variant, master))).text();
  process.stdout.write(
    `gateway: ${/#EXT-X-PART-INF:.*/.exec(media)?.[0]} ${/#EXT-X-SERVER-CONTROL:.*/.exec(media)?.[0]}\n`,
  );
  // --join-after S: the player joins S seconds into the channel's packaging session.
  await new Promise((r) => setTimeout(r, JOIN_AFTER * 1000));
  browser = await launchChromium();
  const tab = await browser.newPage();
  const trace = [];
  if (TRACE) {
    const directives = (u) => {
      const q = new URL(u).searchParams;
      return {
        file: new URL(u).pathname.split("/").at(-1),
        msn: q.get("_HLS_msn") ?? undefined,
        part: q.get("_HLS_part") ?? undefined,
        skip: q.get("_HLS_skip") ?? undefined,
      };
    };
    const sent = new Map();
    tab.on("request", (r) => {
      if (r.url().includes(".m3u8")) sent.set(r, Date.now());
    });
    const done = (r, status) => {
      const at = sent.get(r);
      if (at === undefined) return;
      sent.delete(r);
      const timing = r.timing();
      trace.push({
        t: at,
        src: "page",
        ev: "playlist",
        ...directives(r.url()),
        sent: at,
        firstByte:
          timing.responseStart >= 0
            ? Math.round(timing.startTime + timing.responseStart)
            : undefined,
        end: Date.now(),
        status,
      });
    };
    tab.on("requestfinished", async (r) => done(r, (await r.response())?.status()));
    tab.on("requestfailed", (r) => done(r, r.failure()?.errorText));
  }
  // Resource Timing keeps 250 entries by default: room for every request of the run.
  await tab.addInitScript("performance.setResourceTimingBufferSize(1000000)");
  const opened = Date.now();
  const startup = [];
  if (STARTUP || DEBUG_LOG) {
    tab.on("console", (m) => {
      const at = Date.now() - opened;
      if (at <= 8000 || DEBUG_LOG) startup.push(`${String(at).padStart(5)} ms ${m.text()}`);
    });
    await tab.addInitScript(
      "document.addEventListener('playing', () => console.log('[bench] first playing: hls.latency ' + (typeof hls !== 'undefined' ? hls.latency : '?') + ' currentTime ' + document.querySelector('video').currentTime), { capture: true, once: true })",
    );
  }
  const cfg = STARTUP || DEBUG_LOG ? JSON.stringify({ ...JSON.parse(HLSJS), debug: true }) : HLSJS;
  await tab.goto(
    `${page.origin}/?src=${encodeURIComponent(master)}&cfg=${encodeURIComponent(cfg)}`,
  );
  await tab.waitForFunction("window.probe().t > 0 || window.fatal !== null", undefined, {
    timeout: 60_000,
  });
  if (TRACE)
    await tab.evaluate(
      "window.errLog = []; hls.on(Hls.Events.ERROR, (_e, d) => window.errLog.push({t: Date.now(), src: 'page', ev: 'error', details: d.details, fatal: d.fatal, url: d.context && d.context.url && d.context.url.split('/').at(-1).replace(/[?&](token|viewer)=[^&]*/g, '')}))",
    );
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
  if (STARTUP || DEBUG_LOG) {
    const file = DEBUG_LOG ?? STARTUP;
    writeFileSync(file, `page opened at ${opened} (epoch ms)\n${startup.join("\n")}\n`);
    process.stdout.write(`hls.js debug log: ${startup.length} lines in ${file}\n`);
  }
  if (TRACE) {
    const gwLines = gw
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("llhls "))
      .map((l) => ({ src: "gw", ...JSON.parse(l.slice(6)) }));
    const all = [...trace, ...(await tab.evaluate("window.errLog")), ...gwLines].sort(
      (a, b) => a.t - b.t,
    );
    writeFileSync(TRACE, `${all.map((e) => JSON.stringify(e)).join("\n")}\n`);
    process.stdout.write(`trace: ${all.length} events in ${TRACE}\n`);
  }
} finally {
  await browser?.close();
  await gw?.stop();
  await src.stop();
  await page.close();
}
