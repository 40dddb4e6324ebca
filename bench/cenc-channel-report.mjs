/**
 * What `cenc-channel-cpu.mjs` prints: per window, the CPU and bytes of each engine and the checks
 * of their output; at the end, one markdown table.
 */

export const pct = (cpu, wall) => (100 * cpu) / wall;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");

/** Per-channel figures of one result. */
function figures(r) {
  const native = pct(r.gwCpu - r.idleCpu, r.wall) / r.n;
  const ff = r.ffCpu.map((c) => pct(c, r.wall));
  const gwRate = mean(r.gwBytes) / r.wall;
  const floor = r.nfCpu.length === 0 ? undefined : mean(r.nfCpu.map((c) => pct(c, r.wall)));
  const nfRate = r.nfBytes.length === 0 ? undefined : mean(r.nfBytes) / r.wall;
  const ffRate = mean(r.ffBytes) / r.wall;
  return {
    native,
    ff,
    gwRate,
    ffRate,
    floor,
    nfRate,
    // ms of CPU per MB (10^6 bytes) fetched from the origin.
    nativeMsPerMb: (native * 10) / (gwRate / 1e6),
    ffMsPerMb: (mean(ff) * 10) / (ffRate / 1e6),
  };
}

function checksLine(xs) {
  const bad = xs.filter((c) => c.encrypted || c.frames === 0 || c.errors !== "");
  return bad.length === 0 ? `ok (${xs.length} checked)` : `FAILED ${JSON.stringify(bad)}`;
}

export function report(p, loop) {
  const lines = [
    `\n== ${p.n} channel(s), ${fmt(p.wall)} s window; host: steal ${fmt(p.stealPct)} %, idle ${fmt(p.idlePct)} %, load ${fmt(p.load, 2)}; bench process (origin) ${fmt(p.originPct, 2)} % of one core`,
  ];
  for (const r of p.results) {
    const f = figures(r);
    const samples = r.gwChecks.every((c) => c.sourceSamples)
      ? "= source samples"
      : "SAMPLES DIFFER";
    lines.push(
      `[${r.variant}] native: gateway ${fmt(pct(r.gwCpu, r.wall), 2)} % of one core, idle gateway ${fmt(pct(r.idleCpu, r.wall), 2)} % -> ${fmt(f.native, 2)} % per channel; fetched ${fmt(f.gwRate / 1e3)} kB/s per channel; ${fmt(f.nativeMsPerMb)} ms CPU per MB`,
      `[${r.variant}] ffmpeg: ${fmt(mean(f.ff), 2)} % per process (${fmt(Math.min(...f.ff), 2)}–${fmt(Math.max(...f.ff), 2)}); fetched ${fmt(f.ffRate / 1e3)} kB/s per process (stream: ${fmt(loop.bytesPerSec / 1e3)}); ${fmt(f.ffMsPerMb)} ms CPU per MB; stderr lines ${r.ffStderrLines.join(",")}${r.ffExited ? `; ${r.ffExited} EXITED` : ""}`,
      `[${r.variant}] ffmpeg/native per channel ${fmt(mean(f.ff) / f.native, 2)}; native: ${r.parts}/${r.n} channels publish LL-HLS parts, gateway children ${r.gwChildren || "none"}, warn/error log lines ${r.gwLog.length}${r.gwLog.length ? ` (last: ${r.gwLog.at(-1).slice(0, 200)})` : ""}${
        Object.keys(r.gc).length
          ? `; GC in window: ${Object.entries(r.gc)
              .map(([k, v]) => `${k} ${v.count}× ${fmt(v.ms, 1)} ms`)
              .join(", ")}`
          : ""
      }`,
      `[${r.variant}] output: gateway ${checksLine(r.gwChecks)} ${samples}; ffmpeg ${checksLine(r.ffChecks)}; origin 404s in window: native ${r.notFound.gw}, ffmpeg ${r.notFound.ff}`,
    );
    if (f.floor !== undefined)
      lines.push(
        `[${r.variant}] node floor: ${fmt(f.floor, 2)} % per process; fetched ${fmt(f.nfRate / 1e3)} kB/s per process; floor / ffmpeg ${fmt(f.floor / mean(f.ff), 2)}, native / floor ${fmt(f.native / f.floor, 2)}${r.nfExited ? `; ${r.nfExited} EXITED` : ""}`,
      );
    if (r.ffStderrLines.some((x) => x > 0))
      lines.push(
        `[${r.variant}] ffmpeg stderr tail: ${r.ffStderrTail.trim().split("\n").slice(-2).join(" | ")}`,
      );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The summary as a markdown table, one row per channel count and stream. */
export function printTable(phases) {
  const floors = phases.some((p) => p.results.some((r) => r.nfCpu.length > 0));
  const floorHead = floors ? " node floor per process | floor / ffmpeg |" : "";
  process.stdout.write(
    `\n| channels | stream | native: gateway (idle gateway) | native per channel | ffmpeg per process (min–max) | ffmpeg / native | native / ffmpeg (issue 13 target ≤ 0.5) |${floorHead} fetched per channel: native / ffmpeg | CPU per MB fetched: native / ffmpeg | steal, idle |\n|${" --- |".repeat(floors ? 12 : 10)}\n`,
  );
  for (const p of phases) {
    for (const r of p.results) {
      const f = figures(r);
      const floorCells = floors ? ` ${fmt(f.floor, 2)} % | ${fmt(f.floor / mean(f.ff), 2)}× |` : "";
      process.stdout.write(
        `| ${p.n} | ${r.variant} | ${fmt(pct(r.gwCpu, r.wall), 2)} % (${fmt(pct(r.idleCpu, r.wall), 2)} %) | ${fmt(f.native, 2)} % | ${fmt(mean(f.ff), 2)} % (${fmt(Math.min(...f.ff), 2)}–${fmt(Math.max(...f.ff), 2)}) | ${fmt(mean(f.ff) / f.native, 2)}× | ${fmt(f.native / mean(f.ff), 2)}× |${floorCells} ${fmt(f.gwRate / 1e3)} / ${fmt(f.ffRate / 1e3)} kB/s | ${fmt(f.nativeMsPerMb)} / ${fmt(f.ffMsPerMb)} ms | ${fmt(p.stealPct)} %, ${fmt(p.idlePct)} % |\n`,
      );
    }
  }
}
