// CPU time and memory of a process from Linux /proc, for the benches: the one reader of
// /proc/<pid>/stat and /status the figures of bench/*.mjs share. Loopback benches only.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
export const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** utime + stime of one process (all its threads) so far, in seconds. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // After "(comm) " (comm may hold spaces and parentheses, so the last ")"): state is [0],
  // utime [11], stime [12] (proc(5) fields 14 and 15).
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/** The resident set now (`VmRSS`) and its peak (`VmHWM`) of a process, in KiB (/proc/<pid>/status). */
export function memoryKiB(pid) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}
