// M3U provider source sync at catalog scale (issue 35): a loopback origin serves a generated
// provider list of N entries (default 40,000); the gateway (extensions.m3u_sources) syncs it
// into an empty catalog, then syncs the same list with 1 % of the entries changed (a quarter
// each renamed, URL rotated, added, removed). Reports each sync's wall time and the gateway's
// CPU time, and each sync's peak RSS growth (VmHWM minus the RSS before it).
// Loopback only: the list origin listens on 127.0.0.1; the channel sources point at
// 127.0.0.1:9 and are never contacted.
//   node bench/m3u-source-sync.mjs [--entries 40000] [--keep]
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { startFullGateway } from "./full-gateway.mjs";
import { cpuSeconds, memoryKiB } from "./proc-cpu.mjs";

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
const entries = Number(arg("--entries", "40000"));
const keep = argv.includes("--keep");

/** One provider entry; `v` rotates the URL's token, `suffix` renames. */
const entry = (i, v = 1, suffix = "") =>
  `#EXTINF:-1 tvg-id="ch${i}.bench" tvg-name="Channel ${i}" tvg-logo="http://127.0.0.1:9/logo/${i}.png" group-title="Group ${i % 50}",Channel ${i}${suffix}\r\nhttp://127.0.0.1:9/live/${i}/index.m3u8?token=v${v}`;

/** The list, and the list with 1 % changed: renamed, rotated, removed, and as many added. */
function lists(n) {
  const changes = Math.max(4, Math.round(n / 100));
  const quarter = Math.floor(changes / 4);
  const first = ["#EXTM3U"];
  const second = ["#EXTM3U"];
  for (let i = 0; i < n; i++) {
    first.push(entry(i));
    if (i < quarter) second.push(entry(i, 1, " (new name)"));
    else if (i < 2 * quarter) second.push(entry(i, 2));
    else if (i < 3 * quarter) continue;
    else second.push(entry(i));
  }
  for (let i = n; i < n + quarter; i++) second.push(entry(i));
  return {
    first: `${first.join("\r\n")}\r\n`,
    second: `${second.join("\r\n")}\r\n`,
    expect: { created: quarter, updated: 2 * quarter, disabled: quarter },
  };
}

const cpuMs = (pid) => Math.round(cpuSeconds(pid) * 1000);

const { first, second, expect } = lists(entries);
let served = first;
const origin = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "audio/x-mpegurl" }).end(served);
});
await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
const listUrl = `http://127.0.0.1:${origin.address().port}/list.m3u`;

const gw = await startFullGateway({
  config: { security: { allowed_hosts: ["127.0.0.1"] }, extensions: { m3u_sources: true } },
  keep,
});
const { proc, base, auth } = gw;
try {
  const created = await fetch(`${base}/v1/admin/m3u-sources`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ id: "bench", url: listUrl, enabled: false }),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
  const sync = async (label) => {
    const t0 = performance.now();
    const c0 = cpuMs(proc.pid);
    const res = await fetch(`${base}/v1/admin/m3u-sources/bench/refresh`, {
      method: "POST",
      headers: auth,
    });
    const body = await res.json();
    const ms = performance.now() - t0;
    if (!body.ok) throw new Error(`${label}: ${JSON.stringify(body)}`);
    return { ms, cpu: cpuMs(proc.pid) - c0, status: body.status };
  };
  const idle = memoryKiB(proc.pid);
  const initial = await sync("initial");
  if (initial.status.created !== entries)
    throw new Error(`initial: created ${initial.status.created}, expected ${entries}`);
  const afterInitial = memoryKiB(proc.pid);
  // Linux: "5" resets VmHWM to the current RSS, so the second peak is the 1 % sync's own.
  writeFileSync(`/proc/${proc.pid}/clear_refs`, "5");
  const beforeChanged = memoryKiB(proc.pid);
  served = second;
  const changed = await sync("1 % changed");
  const peak = memoryKiB(proc.pid);
  const got = {
    created: changed.status.created,
    updated: changed.status.updated,
    disabled: changed.status.disabled,
  };
  if (JSON.stringify(got) !== JSON.stringify(expect))
    throw new Error(`changed: ${JSON.stringify(got)}, expected ${JSON.stringify(expect)}`);
  const mib = (kib) => (kib / 1024).toFixed(1);
  console.log(
    `entries              ${entries} (${mib(Buffer.byteLength(first) / 1024)} MiB of M3U)`,
  );
  console.log(`initial sync         ${initial.ms.toFixed(0)} ms (gateway CPU ${initial.cpu} ms)`);
  console.log(
    `1 % changed sync     ${changed.ms.toFixed(0)} ms (gateway CPU ${changed.cpu} ms; ${JSON.stringify(got)})`,
  );
  console.log(`RSS before           ${mib(idle.rss)} MiB`);
  console.log(
    `initial sync         peak RSS growth ${mib(afterInitial.hwm - idle.rss)} MiB (VmHWM ${mib(afterInitial.hwm)} MiB)`,
  );
  console.log(
    `1 % changed sync     peak RSS growth ${mib(peak.hwm - beforeChanged.rss)} MiB (from ${mib(beforeChanged.rss)} MiB to VmHWM ${mib(peak.hwm)} MiB)`,
  );
} finally {
  await gw.stop();
  origin.close();
}
