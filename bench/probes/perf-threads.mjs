#!/usr/bin/env node
// Reads `perf script` output and says where one process's CPU went, all its threads
// together: the main thread (JavaScript, V8 and node natives, the kernel's socket work) and
// V8's helper threads (concurrent marking and sweeping, TurboFan compiling), which a
// `--cpu-prof` profile cannot see because it samples the main thread only. A benchmark aid
// for Linux with `perf`; loopback benches only, never in production.
//
//   perf record -e cpu-clock -F 1000 -C 1 -g -o /tmp/perf.data &      # the benched core
//   taskset -c 1 node bench/cenc-channel-cpu.mjs --channels 1 --seconds 60 --warmup 120 \
//     --viewer --variants clear --mpd timeline --node-args "--perf-basic-prof"
//   kill -INT %1
//   perf script -i /tmp/perf.data -F comm,pid,tid,time,ip,sym,dso > /tmp/perf.txt
//   node bench/probes/perf-threads.mjs /tmp/perf.txt PID [FROM_S TO_S] [TOP]
//
// PID is the gateway's (the process with most `node` samples that is not the bench itself:
// `perf script ... -F pid | sort | uniq -c`); FROM_S and TO_S are seconds after its first
// sample (the bench's window: the last SECONDS before the gateway stops). At `-F 1000` one
// sample is one millisecond of CPU. `--perf-basic-prof` names JIT-compiled JavaScript frames.
import { readFileSync } from "node:fs";

const [file, pidArg, fromArg, toArg, topArg] = process.argv.slice(2);
if (file === undefined || pidArg === undefined) {
  process.stderr.write("usage: perf-threads.mjs PERF_SCRIPT_TXT PID [FROM_S TO_S] [TOP]\n");
  process.exit(2);
}
const pid = Number(pidArg);
const top = Number(topArg ?? 25);

/** One sample: its thread, time and frames (innermost first). */
function* samples(text) {
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    const head = /^\S.*?\s(\d+)\/(\d+)\s+([\d.]+):/.exec(lines[0] ?? "");
    if (!head || Number(head[1]) !== pid) continue;
    const frames = lines.slice(1).map((l) => {
      const m = /^\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)$/.exec(l);
      return m ? `${m[1]} [${m[2].split("/").pop()}]` : l.trim();
    });
    yield { tid: Number(head[2]), t: Number(head[3]), frames };
  }
}

const GC =
  /Scaveng|MarkCompact|ConcurrentMarking|IncrementalMarking|Sweeper|Heap::CollectGarbage|Heap::PerformGarbageCollection|MinorMC|Evacuat/;
const COMPILE = /compiler::|Compile|Turbofan|Maglev|Sparkplug|Baseline(Batch)?Compil/;

/** What a sample was doing, by thread and by the frames on its stack. */
function category(s) {
  const stack = s.frames.join(" | ");
  const inner = s.frames[0] ?? "";
  if (s.tid !== pid) {
    if (COMPILE.test(stack)) return "helper threads: JIT compiling";
    if (GC.test(stack)) return "helper threads: garbage collection";
    return "helper threads: other";
  }
  if (GC.test(stack)) return "main thread: garbage collection";
  if (inner.includes("[kernel")) {
    if (/writev|sendmsg|tcp_sendmsg|sock_write/.test(stack))
      return "main thread: kernel, socket writes";
    if (/read|recv/.test(stack)) return "main thread: kernel, socket reads";
    if (/epoll/.test(stack)) return "main thread: kernel, epoll";
    return "main thread: kernel, other";
  }
  if (inner.startsWith("Builtins_") || inner.startsWith("JS:") || inner.includes("[perf-"))
    return "main thread: JavaScript (with V8 builtins)";
  return "main thread: V8 runtime and node natives";
}

const all = [...samples(readFileSync(file, "utf8"))];
if (all.length === 0) {
  process.stderr.write(`no samples of pid ${pid}\n`);
  process.exit(1);
}
const t0 = all[0].t;
const from = t0 + Number(fromArg ?? 0);
const to = t0 + Number(toArg ?? Number.POSITIVE_INFINITY);
const picked = all.filter((s) => s.t >= from && s.t < to);
const span = Math.min(to, all.at(-1).t) - from;

const count = (keyOf) => {
  const m = new Map();
  for (const s of picked) {
    const k = keyOf(s);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return [...m].sort((a, b) => b[1] - a[1]);
};
const line = ([k, n]) =>
  `${String(n).padStart(6)} ${((100 * n) / picked.length).toFixed(1).padStart(5)} %  ${k}`;

process.stdout.write(
  `${picked.length} samples in ${span.toFixed(1)} s (${((picked.length / span) * 0.1).toFixed(2)} % of a core at -F 1000)\n`,
);
process.stdout.write("--- by thread\n");
for (const e of count((s) => (s.tid === pid ? `main ${s.tid}` : `helper ${s.tid}`)))
  process.stdout.write(`${line(e)}\n`);
process.stdout.write("--- by kind\n");
for (const e of count(category)) process.stdout.write(`${line(e)}\n`);
process.stdout.write("--- innermost frame\n");
for (const e of count((s) => s.frames[0] ?? "?").slice(0, top))
  process.stdout.write(`${line(e)}\n`);
