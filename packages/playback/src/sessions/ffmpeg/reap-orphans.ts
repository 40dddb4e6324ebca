import { rm } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { listPidfiles, removePidfile } from "./pidfile.js";
import { readCmdline, readProcStat, terminateGroup } from "./process-group.js";
import { sessionsRoot } from "./session-paths.js";

/** What {@link reapOrphans} found and did. */
export interface ReapReport {
  /** Orphaned ffmpeg processes whose group was killed. */
  readonly killed: readonly { pid: number; channel: string; generation: string }[];
  /** Pidfiles whose process was gone or was not our ffmpeg (a recycled pid): removed, nothing killed. */
  readonly stale: number;
  /** Groups that survived SIGKILL (should not happen; reported rather than hidden). */
  readonly survivors: readonly number[];
}

/**
 * Run once at gateway start, before any session starts: kill every ffmpeg a previous
 * gateway left behind (it died without stopping them, e.g. SIGKILL or OOM). A pidfile's
 * process is only killed when it is still ours: alive, leading its own process group, and
 * its argv names a path inside the recorded session folder. Anything else is a stale
 * record. Session folders of reaped sessions are removed (`removeOutput`, default true).
 * @example const report = await reapOrphans(config.server.data_dir);
 */
export async function reapOrphans(
  dataDir: string,
  opts: { graceMs?: number; removeOutput?: boolean } = {},
): Promise<ReapReport> {
  const killed: { pid: number; channel: string; generation: string }[] = [];
  const survivors: number[] = [];
  let stale = 0;
  const root = sessionsRoot(dataDir) + sep;
  for (const { path, record } of await listPidfiles(dataDir)) {
    if (record === undefined) {
      stale += 1;
      removePidfile(path);
      continue;
    }
    const stat = await readProcStat(record.pid);
    const argv = stat === undefined ? [] : await readCmdline(record.pid);
    const ours =
      stat !== undefined &&
      stat.state !== "Z" &&
      stat.pgrp === record.pid &&
      // A session of this very process is not an orphan.
      stat.ppid !== process.pid &&
      // Nor one of a sibling worker (`server.workers` > 1: the same command line, alive).
      !(await sameCommandAsUs(stat.ppid)) &&
      argv.some((arg) => arg.startsWith(record.dir + sep));
    if (ours) {
      if (await terminateGroup(record.pid, opts.graceMs ?? 2_000)) {
        killed.push({ pid: record.pid, channel: record.channel, generation: record.generation });
      } else {
        survivors.push(record.pid);
        continue; // keep the pidfile: the next start tries again
      }
    } else {
      stale += 1;
    }
    removePidfile(path);
    // Only folders inside sessions/ are removed, whatever the pidfile claims.
    const inside = resolve(record.dir) === record.dir && record.dir.startsWith(root);
    if ((opts.removeOutput ?? true) && inside)
      await rm(record.dir, { recursive: true, force: true });
  }
  return { killed, stale, survivors };
}

/** True when `pid` runs this process's own command line: another worker of the same gateway. */
async function sameCommandAsUs(pid: number): Promise<boolean> {
  if (pid <= 1) return false;
  const [theirs, ours] = await Promise.all([readCmdline(pid), readCmdline(process.pid)]);
  return theirs.length > 0 && theirs.join("\0") === ours.join("\0");
}
