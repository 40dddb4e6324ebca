// M3U import and export at catalog scale (issue 11): a generated playlist of N entries
// (default 40,000) previewed and applied through POST /v1/admin/import/m3u, then the
// catalog exported through POST /v1/admin/exports/m3u. Reports wall time of each call and
// the gateway's peak RSS growth (VmHWM minus the RSS before the import). Loopback only:
// the generated sources point at 127.0.0.1:9 and are never contacted.
//   node bench/m3u-catalog.mjs [--entries 40000] [--keep] [--cpu-prof DIR]
// --cpu-prof DIR starts the gateway with `node --cpu-prof` writing its profile into DIR
// (open it in Chromium's DevTools, Performance tab) to see where an import spends its time.
import { startFullGateway } from "./full-gateway.mjs";
import { cpuSeconds, memoryKiB } from "./proc-cpu.mjs";

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

const cpuMs = (pid) => Math.round(cpuSeconds(pid) * 1000);

const gw = await startFullGateway({
  nodeArgs: cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : [],
  keep,
});
const { proc, base, auth } = gw;
try {
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
  const idle = memoryKiB(proc.pid);
  const preview = await timed("preview", `${base}/v1/admin/import/m3u`, { content, apply: false });
  const previewed = JSON.parse(preview.text);
  const apply = await timed("apply", `${base}/v1/admin/import/m3u`, {
    content,
    apply: true,
    revisions: previewed.revisions,
  });
  const applied = JSON.parse(apply.text);
  const exported = await timed("export", `${base}/v1/admin/exports/m3u`);
  const peak = memoryKiB(proc.pid);
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
  await gw.stop();
}
