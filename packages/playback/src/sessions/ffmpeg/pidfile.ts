import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pidfileDir } from "./session-paths.js";

/**
 * What a pidfile records about one running ffmpeg: enough for the next gateway start to
 * recognise it (its session folder is in its argv) and to kill its process group.
 */
export interface PidfileRecord {
  readonly pid: number;
  /** Absolute session folder; ffmpeg's output paths lie inside it. */
  readonly dir: string;
  readonly channel: string;
  readonly generation: string;
  readonly started_at: string;
}

/**
 * Write `{data_dir}/sessions/.pids/<pid>.json` synchronously right after the spawn, so the
 * window in which a SIGKILLed gateway leaves an unrecorded ffmpeg is as small as it can be.
 * Written to a temp name and renamed, so a reader never sees half a file.
 */
export function writePidfile(dataDir: string, record: PidfileRecord): string {
  const dir = pidfileDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${record.pid}.json`);
  writeFileSync(`${path}.tmp`, JSON.stringify(record), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
  return path;
}

/** Remove a pidfile; never throws (a leftover one is only a stale record for reapOrphans). */
export function removePidfile(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // reapOrphans treats it as stale on the next start
  }
}

function isRecord(v: unknown): v is PidfileRecord {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.pid === "number" &&
    Number.isInteger(r.pid) &&
    r.pid > 1 &&
    typeof r.dir === "string" &&
    r.dir.startsWith("/") &&
    typeof r.channel === "string" &&
    typeof r.generation === "string" &&
    typeof r.started_at === "string"
  );
}

/** Every pidfile under `{data_dir}/sessions/.pids/`; unreadable ones come back as `invalid`. */
export async function listPidfiles(
  dataDir: string,
): Promise<{ path: string; record: PidfileRecord | undefined }[]> {
  const dir = pidfileDir(dataDir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: { path: string; record: PidfileRecord | undefined }[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    if (!name.endsWith(".json")) {
      if (name.endsWith(".json.tmp")) out.push({ path, record: undefined });
      continue;
    }
    try {
      const parsed: unknown = JSON.parse(await readFile(path, "utf8"));
      out.push({ path, record: isRecord(parsed) ? parsed : undefined });
    } catch {
      out.push({ path, record: undefined });
    }
  }
  return out;
}
