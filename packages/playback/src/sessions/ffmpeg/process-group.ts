import { readdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

// Linux /proc reads: the gateway targets Linux, where a dead gateway's orphans can only be
// told apart from recycled pids by looking at their command line and process group.

/** Fields of /proc/<pid>/stat we need (proc(5)). */
export interface ProcStat {
  readonly pid: number;
  /** R, S, D, Z, T, ... */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

/** /proc/<pid>/stat, or undefined when no such process exists. */
export async function readProcStat(pid: number): Promise<ProcStat | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // comm (field 2) is parenthesised and may hold spaces or parentheses: split after the last ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgrp] = [rest[0] ?? "", Number(rest[1]), Number(rest[2])];
  return { pid, state, ppid, pgrp };
}

/** argv of a process from /proc/<pid>/cmdline; empty when it is gone or a zombie. */
export async function readCmdline(pid: number): Promise<string[]> {
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`, "utf8");
    return raw.split("\0").filter((a, i, all) => a !== "" || i < all.length - 1);
  } catch {
    return [];
  }
}

/** Live (non-zombie) members of process group `pgid`. A zombie has finished; its parent reaps it. */
export async function liveGroupMembers(pgid: number): Promise<number[]> {
  try {
    process.kill(-pgid, 0);
  } catch {
    return []; // no process at all in the group: skip the /proc scan
  }
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readProcStat(Number(name));
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== "Z") members.push(stat.pid);
  }
  return members;
}

/** Send `signal` to every process of the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Poll until the group has no live member or `timeoutMs` passed; true when it is empty. */
export async function waitGroupEmpty(
  pgid: number,
  timeoutMs: number,
  pollMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await liveGroupMembers(pgid)).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
}

/**
 * SIGTERM the group, give it `graceMs` to finish (ffmpeg closes the playlist), then SIGKILL
 * whatever is left and wait for it. Resolves true when the group is gone.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!signalGroup(pgid, "SIGTERM")) return true;
  if (await waitGroupEmpty(pgid, graceMs)) return true;
  signalGroup(pgid, "SIGKILL");
  return waitGroupEmpty(pgid, 5_000);
}
