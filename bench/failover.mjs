#!/usr/bin/env node
// Failover benchmark (issue 35 "Benchmark", docs/benchmarks.md "Failover"): for each failure
// kind, the time from the failure to its detection (the `source failover` switch in
// `/v1/status`) and from the detection to the first segment of the next source in the
// channel's output playlist (target: at most one target duration). Loopback only; not part
// of `npm test`. Needs ffmpeg. No reference: no other tool switches sources inside one
// output, so the figures stand against the contract's bounds (5 s for a TS stream without
// bytes or video, three target durations for a frozen HLS playlist).
//
//   npx pnpm@10.34.9 exec turbo run build
//   node bench/failover.mjs [--rounds 3] [--cpu 1] [--client-cpu 0]
//
// Three channels on the full binary: `ts` (switchable MPEG-TS origin, 2 s output segments),
// `hls` (switchable HLS origin, 1 s source segments, 2 s output segments) and `dash`
// (switchable ClearKey DASH origin, 1 s segments), each with one fallback source. A round: the primary plays, then fails in one way; the output
// playlist is read every 50 ms; the primary comes back and the channel fails back
// (`failback_sec` 3) before the next round. Prints one JSON line per round and a summary.
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { startSwitchableDashOrigin } from "../tests/dist/failover/dash-switchable-origin.js";
import { failoverSession, mediaPlaylist } from "../tests/dist/failover/failover-checks.js";
import { startSwitchableHlsOrigin } from "../tests/dist/failover/switchable-hls-origin.js";
import { startSwitchableTsOrigin } from "../tests/dist/failover/switchable-ts-origin.js";
import { startGateway } from "../tests/dist/harness/gateway-process.js";
import { login } from "../tests/dist/harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../tests/dist/harness/users.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const ROUNDS = Number(arg("rounds", "3"));
const CPU = arg("cpu", "1");
const CLIENT_CPU = arg("client-cpu", "0");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

spawnSync("taskset", ["-cp", CLIENT_CPU, String(process.pid)]);
out({
  bench: "failover",
  at: new Date().toISOString(),
  load_average: loadavg()[0].toFixed(2),
  rounds: ROUNDS,
  cpu: CPU,
  client_cpu: CLIENT_CPU,
});

const tsOrigin = await startSwitchableTsOrigin();
for (const p of ["/a.ts", "/b.ts"]) tsOrigin.set(p, "live");
const hlsOrigin = await startSwitchableHlsOrigin();
// A ClearKey-encrypted LL-DASH source (1 s segments), as the failover suite's.
const CLEARKEY = {
  kid: "9eb4050de44b4802932e27d75083e266",
  key: "166634c675823c235a4a9446fad52e4d",
};
const dashOrigin = await startSwitchableDashOrigin(CLEARKEY);
const gw = await startGateway("full", {
  auth: authSection(),
  security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
  // A channel's session must outlive the other channels' rounds (nothing plays it then).
  media: { failback_sec: 3, idle_stop_sec: 600 },
  channels: [
    {
      id: "ts",
      title: "TS",
      ingress: "ts",
      source_url: `${tsOrigin.url}/a.ts`,
      fallback_sources: [{ source_url: `${tsOrigin.url}/b.ts` }],
    },
    {
      id: "hls",
      title: "HLS",
      ingress: "hls",
      source_url: `${hlsOrigin.url}/a/index.m3u8`,
      fallback_sources: [{ source_url: `${hlsOrigin.url}/b/index.m3u8` }],
    },
    {
      id: "dash",
      title: "DASH",
      ingress: "dash",
      source_url: `${dashOrigin.url}/a/out.mpd`,
      keys: { [CLEARKEY.kid]: CLEARKEY.key },
      fallback_sources: [{ source_url: `${dashOrigin.url}/b/out.mpd` }],
    },
  ],
});
spawnSync("taskset", ["-a", "-cp", CPU, String(gw.proc.pid)]);
const admin = await login(gw.url, "admin", ADMIN_PASSWORD);

const session = (id) => failoverSession(gw.url, admin, id);

/** The channel's media playlist (its master playlist followed to the variant). */
const playlistOf = async (id) => (await mediaPlaylist(`${gw.url}/v1/play/${id}/index.m3u8`)).text;

/** Segment URIs that follow an `#EXT-X-DISCONTINUITY` in `text`. */
function afterDiscontinuity(text) {
  const lines = text.split("\n");
  const found = new Set();
  let marked = false;
  for (const l of lines) {
    if (l === "#EXT-X-DISCONTINUITY") marked = true;
    else if (l !== "" && !l.startsWith("#")) {
      if (marked) found.add(l);
      marked = false;
    }
  }
  return found;
}

/**
 * One round: `fail()` at t0; detection = the session's `failovers` grows; the next
 * source's first segment = a segment after a discontinuity that was not in the playlist
 * before, that is not the slate's, listed after the detection.
 */
async function round(id, kind, fail, restore, targetSec) {
  const before = await session(id);
  const known = afterDiscontinuity(await playlistOf(id));
  const t0 = Date.now();
  fail();
  let detectedAt;
  let firstSegmentAt;
  while (Date.now() - t0 < 30_000 && firstSegmentAt === undefined) {
    await sleep(50);
    if (detectedAt === undefined) {
      const s = await session(id);
      if (s.failovers > before.failovers) detectedAt = Date.now();
    }
    if (detectedAt !== undefined) {
      const fresh = [...afterDiscontinuity(await playlistOf(id))].filter((u) => !known.has(u));
      if (fresh.length > 0) firstSegmentAt = Date.now();
    }
  }
  const r = {
    channel: id,
    kind,
    detect_ms: detectedAt === undefined ? null : detectedAt - t0,
    first_segment_after_detect_ms:
      firstSegmentAt === undefined || detectedAt === undefined ? null : firstSegmentAt - detectedAt,
    target_ms: targetSec * 1000,
  };
  out(r);
  restore();
  // Fail back to the primary before the next round.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const s = await session(id);
    if (s.active_source === 0 && s.state === "running") break;
    await sleep(250);
  }
  await sleep(3_000);
  return r;
}

const cases = [
  ["ts", "dropped", () => tsOrigin.set("/a.ts", "drop"), () => tsOrigin.set("/a.ts", "live")],
  ["ts", "no_bytes", () => tsOrigin.set("/a.ts", "stall"), () => tsOrigin.set("/a.ts", "live")],
  ["ts", "no_video", () => tsOrigin.set("/a.ts", "audio"), () => tsOrigin.set("/a.ts", "live")],
  ["hls", "http_error", () => hlsOrigin.set("a", 404), () => hlsOrigin.set("a", "live")],
  ["hls", "stalled", () => hlsOrigin.set("a", "frozen"), () => hlsOrigin.set("a", "live")],
  ["dash", "http_error", () => dashOrigin.set("a", 500), () => dashOrigin.set("a", "live")],
  ["dash", "stalled", () => dashOrigin.set("a", "frozen"), () => dashOrigin.set("a", "live")],
];

// Both channels playing before the first round.
for (const id of ["ts", "hls", "dash"]) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    // A play request starts the on-demand session.
    const text = await playlistOf(id).catch(() => "");
    const s = await session(id).catch(() => undefined);
    if (s?.state === "running" && text.includes("#EXTINF")) break;
    await sleep(500);
  }
}

const results = [];
for (let i = 0; i < ROUNDS; i += 1)
  for (const [id, kind, fail, restore] of cases)
    results.push(await round(id, kind, fail, restore, 2));

const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  return s.length === 0 ? null : s[Math.floor(s.length / 2)];
};
for (const [id, kind] of cases) {
  const mine = results.filter((r) => r.channel === id && r.kind === kind);
  out({
    summary: `${id} ${kind}`,
    detect_ms_median: median(mine.map((r) => r.detect_ms)),
    detect_ms_max: Math.max(...mine.map((r) => r.detect_ms ?? Number.POSITIVE_INFINITY)),
    first_segment_after_detect_ms_median: median(mine.map((r) => r.first_segment_after_detect_ms)),
    first_segment_after_detect_ms_max: Math.max(
      ...mine.map((r) => r.first_segment_after_detect_ms ?? Number.POSITIVE_INFINITY),
    ),
    target_ms: 2000,
  });
}

await gw.stop();
await tsOrigin.stop();
await hlsOrigin.stop();
await dashOrigin.stop();
