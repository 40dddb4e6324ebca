import { readdirSync, readFileSync } from "node:fs";

// Independent /proc readers for the tests (not the engine's own), so a bug in the engine's
// process helpers cannot hide itself.

export interface ProcEntry {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

export function procEntry(pid: number): ProcEntry | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, state: f[0] ?? "?", ppid: Number(f[1]), pgrp: Number(f[2]) };
  } catch {
    return undefined;
  }
}

export function allProcs(): ProcEntry[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .flatMap((n) => {
      const e = procEntry(Number(n));
      return e === undefined ? [] : [e];
    });
}

/** A process counts as gone when /proc has no entry or only a zombie its (other) parent will reap. */
export function isGone(pid: number): boolean {
  const e = procEntry(pid);
  return e === undefined || (e.state === "Z" && e.ppid !== process.pid);
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number): ProcEntry[] {
  return allProcs().filter((p) => p.pgrp === pgid && p.state !== "Z");
}

/** Zombies whose parent is this test process (children we failed to reap). */
export function ourZombies(): ProcEntry[] {
  return allProcs().filter((p) => p.ppid === process.pid && p.state === "Z");
}

export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((a) => a !== "");
  } catch {
    return [];
  }
}
