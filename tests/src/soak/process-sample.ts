import { readdirSync, readFileSync } from "node:fs";

/** Resident set size (KiB) and open file descriptors of a live process, from /proc. */
export function sampleProcess(pid: number): { rssKiB: number; fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN);
  return { rssKiB: rss, fds: readdirSync(`/proc/${pid}/fd`).length };
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)]!;
};
