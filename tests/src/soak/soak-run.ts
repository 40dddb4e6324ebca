import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startDashLiveSource } from "../harness/dash-live-source.js";
import { startGateway } from "../harness/gateway-process.js";
import { hlsFixtures } from "../harness/hls-fixtures.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { DEFAULT_FAULTS, startFaultOrigin } from "./fault-origin.js";
import { median, sampleProcess } from "./process-sample.js";
import { slowHeaderAttack } from "./slow-clients.js";
import { type Kind, runViewer, Tally } from "./viewer-load.js";

// Fault and load soak (issue 14 item 3), run by `npm run soak` (scripts/soak.mjs), never by
// `npm test`. Everything is on loopback: the full binary on port 0, a fault-injecting origin,
// a live DASH source (ffmpeg), simulated viewers in this process.

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    viewers: { type: "string", default: "1000" },
    "slow-share": { type: "string", default: "0.05" },
    "slow-headers": { type: "string", default: "200" },
    // Above the gateway's longest legitimate wait: a play request waits up to 30 s for a
    // starting DASH session (START_WAIT_MS in dash-local-ingress.ts). Answers slower than a
    // player's own 10 s timeout are counted as "late" and reported separately.
    "timeout-ms": { type: "string", default: "35000" },
    "health-p99-ms": { type: "string", default: "1000" },
    seed: { type: "string", default: "14" },
    out: { type: "string" },
  },
});
const minutes = Number(values.minutes);
const viewers = Number(values.viewers);
const durationMs = minutes * 60_000;
const timeoutMs = Number(values["timeout-ms"]);
const INTERVAL_MS = 30_000;
const warmupMs = Math.min(60_000, durationMs * 0.3);

// Hard bound: whatever happens, the run ends (the harness kills the gateway and ffmpeg on exit).
const hard = setTimeout(
  () => {
    process.stdout.write("soak: FAIL hard timeout reached\n");
    process.exit(2);
  },
  durationMs + 5 * 60_000,
);
hard.unref();

const log = (s: string) => process.stdout.write(`${s}\n`);
const fmt = (ms: number | undefined) => (ms === undefined ? "-" : `${Math.round(ms)} ms`);

async function main(): Promise<boolean> {
  const hlsRoot = await hlsFixtures();
  const dashSource = await startDashLiveSource({
    heights: [180],
    languages: ["eng"],
    durationSec: Math.ceil(durationMs / 1000) + 180,
    fragDurationSec: 0,
  });
  await dashSource.waitForSegments(3);
  const origin = await startFaultOrigin({
    hlsRoot,
    dashOrigin: dashSource.origin,
    faults: DEFAULT_FAULTS,
    seed: Number(values.seed),
  });
  const hlsIds = ["hls0", "hls1", "hls2", "hls3"];
  const dashIds = ["dash0", "dash1"];
  const gw = await startGateway("full", {
    auth: authSection([], { login_rate_per_min: 1000 }),
    security: { allowed_hosts: ["127.0.0.1"] },
    egress: { connect_timeout_ms: 1000, first_byte_timeout_ms: 2000, idle_timeout_ms: 2000 },
    channels: [
      ...hlsIds.map((id) => ({
        id,
        title: id,
        ingress: "hls",
        source_url: `${origin.url}/hls/${id}/live.m3u8`,
      })),
      ...dashIds.map((id) => ({
        id,
        title: id,
        ingress: "dash",
        source_url: `${origin.url}/dash/out.mpd`,
      })),
    ],
  });
  const pid = gw.proc.pid!;
  try {
    const admin = await login(gw.url, "admin", ADMIN_PASSWORD);
    const key = await requestJson(`${gw.url}/v1/admin/access-tokens`, {
      token: admin,
      body: { name: "soak" },
    });
    if (key.status !== 201) throw new Error(`playback key: ${key.text}`);
    const ids = [...hlsIds, ...dashIds];
    log(
      `soak: ${viewers} viewers (${Math.round(viewers * Number(values["slow-share"]))} slow readers) ` +
        `over ${hlsIds.length} HLS + ${dashIds.length} DASH channels for ${minutes} min; ` +
        `warm-up ${warmupMs / 1000} s; request timeout ${timeoutMs} ms`,
    );

    const total = new Tally();
    let interval = new Tally();
    const current = () => interval;
    const started = Date.now();
    const until = started + durationMs;
    const slowEvery =
      Number(values["slow-share"]) > 0 ? Math.round(1 / Number(values["slow-share"])) : 0;
    const load = Array.from({ length: viewers }, (_, i) =>
      runViewer({
        playUrl: `${gw.url}/p/${key.body.token}/play/${ids[i % ids.length]}/index.m3u8`,
        until,
        timeoutMs,
        slow: slowEvery > 0 && i % slowEvery === slowEvery - 1,
        tally: current,
      }),
    );

    const samples: { t: number; rssKiB: number; fds: number }[] = [];
    const sampler = setInterval(
      () => samples.push({ t: Date.now() - started, ...sampleProcess(pid) }),
      5000,
    );
    const reports: string[] = [];
    const reporter = setInterval(() => {
      const t = interval;
      interval = new Tally();
      total.merge(t);
      const s = samples.at(-1) ?? { rssKiB: Number.NaN, fds: Number.NaN };
      const kinds: Kind[] = ["playlist", "segment", "slow-segment"];
      const outcomes = kinds
        .map(
          (k) =>
            `${k} ok ${t.count(k, "ok")} 5xx ${t.count(k, "5xx")} 4xx ${t.count(k, "4xx")} err ${t.count(k, "error")} timeout ${t.count(k, "timeout")} late>10s ${t.late.get(k) ?? 0} p99 ${fmt(t.p99(k))}`,
        )
        .join(" | ");
      const line = `t=${Math.round((Date.now() - started) / 1000)}s ${outcomes} | RSS ${Math.round(s.rssKiB / 1024)} MiB fds ${s.fds}`;
      reports.push(line);
      log(line);
    }, INTERVAL_MS);

    // Slow-header attack once the load is warm: the gateway is busy when it happens.
    await new Promise((r) => setTimeout(r, warmupMs));
    const attack = await slowHeaderAttack(gw.url, Number(values["slow-headers"]), 30_000);
    const closedIn = attack.closedMs.length === 0 ? Number.NaN : Math.max(...attack.closedMs);
    const healthP99 = [...attack.healthMs].sort((a, b) => a - b)[
      Math.floor(attack.healthMs.length * 0.99)
    ];
    log(
      `slow headers: ${attack.sockets} sockets, ${attack.closedMs.length} closed by the gateway, last after ` +
        `${Math.round(closedIn)} ms, ${attack.stillOpen} still open; /healthz meanwhile: ` +
        `${attack.healthMs.length} answers, p99 ${fmt(healthP99)}, ${attack.healthFailures} failures`,
    );

    await Promise.all(load);
    clearInterval(reporter);
    clearInterval(sampler);
    total.merge(interval);

    // Growth: samples of the first 30 s after warm-up against the last 30 s of the run.
    const after = samples.filter((s) => s.t >= warmupMs && s.t < warmupMs + 30_000);
    const end = samples.filter((s) => s.t >= durationMs - 30_000);
    const growth = (f: (s: { rssKiB: number; fds: number }) => number) =>
      median(end.map(f)) / median(after.map(f)) - 1;
    const rssGrowth = growth((s) => s.rssKiB);
    const fdGrowth = growth((s) => s.fds);

    const hangs = total.count("playlist", "timeout") + total.count("segment", "timeout");
    const slowHangs = total.count("slow-segment", "timeout");
    const internal = (["playlist", "segment", "slow-segment"] as Kind[]).reduce(
      (n, k) => n + total.count(k, "500"),
      0,
    );
    const checks: [string, boolean][] = [
      [`RSS growth after warm-up ${(rssGrowth * 100).toFixed(1)} % <= 10 %`, rssGrowth <= 0.1],
      [`open fd growth after warm-up ${(fdGrowth * 100).toFixed(1)} % <= 10 %`, fdGrowth <= 0.1],
      [`no viewer request hung past ${timeoutMs} ms (normal viewers: ${hangs})`, hangs === 0],
      [`no slow reader hung past ${timeoutMs * 6} ms (${slowHangs})`, slowHangs === 0],
      [
        `slow readers did not stall other viewers: normal segment p99 ${fmt(total.p99("segment"))} < ${timeoutMs} ms, no hang`,
        hangs === 0 && (total.p99("segment") ?? 0) < timeoutMs,
      ],
      [`no 500 answer (${internal})`, internal === 0],
      [
        `all ${attack.sockets} slow-header sockets closed within 15 s (last ${Math.round(closedIn)} ms)`,
        attack.stillOpen === 0 && closedIn <= 15_000,
      ],
      [
        `/healthz p99 during the attack ${fmt(healthP99)} <= ${values["health-p99-ms"]} ms, no failure`,
        attack.healthFailures === 0 &&
          (healthP99 ?? Number.POSITIVE_INFINITY) <= Number(values["health-p99-ms"]),
      ],
      [`the gateway is alive`, gw.proc.exitCode === null && gw.proc.signalCode === null],
    ];
    const summary = {
      minutes,
      viewers,
      faults_injected: origin.injected,
      requests: Object.fromEntries(total.counts),
      p99_ms: Object.fromEntries(
        (["playlist", "segment", "slow-segment"] as Kind[]).map((k) => [k, total.p99(k)]),
      ),
      rss_mib: {
        after_warmup: median(after.map((s) => s.rssKiB)) / 1024,
        end: median(end.map((s) => s.rssKiB)) / 1024,
      },
      fds: { after_warmup: median(after.map((s) => s.fds)), end: median(end.map((s) => s.fds)) },
      slow_headers: {
        sockets: attack.sockets,
        closed: attack.closedMs.length,
        last_closed_ms: closedIn,
        health_p99_ms: healthP99,
        health_failures: attack.healthFailures,
      },
      hung: total.hung,
      refused: total.refused,
      late_over_10s: Object.fromEntries(total.late),
      checks: checks.map(([name, ok]) => ({ name, ok })),
      reports,
    };
    if (values.out !== undefined)
      writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`);
    log(`faults injected: ${JSON.stringify(origin.injected)}`);
    log(
      `answers slower than a player's 10 s timeout (not failing): ${JSON.stringify(Object.fromEntries(total.late))}`,
    );
    for (const h of total.hung) log(`hung: ${h}`);
    for (const r of total.refused) log(`4xx: ${r}`);
    log(`requests: ${JSON.stringify(summary.requests)}`);
    for (const [name, ok] of checks) log(`${ok ? "PASS" : "FAIL"} ${name}`);
    return checks.every(([, ok]) => ok);
  } finally {
    await gw.stop();
    await origin.close();
    await dashSource.stop();
  }
}

main().then(
  (ok) => {
    log(ok ? "soak: PASS" : "soak: FAIL");
    process.exit(ok ? 0 : 1);
  },
  (err) => {
    log(`soak: FAIL ${(err as Error).stack}`);
    process.exit(1);
  },
);
