import {
  chmodSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import fsx from "fs-native-extensions";
import { ConfigError } from "../config/problems.js";

/** The lock file inside `server.data_dir`. */
export const DATA_DIR_LOCK_FILE = "gateway.lock";

/** Held for the life of the process; the kernel releases it when the process ends. */
export interface DataDirLock {
  readonly path: string;
}

/**
 * Claims `server.data_dir` for this process before anything else touches it
 * (state database, generated keys, ffmpeg session folders and the reaping of
 * orphaned ffmpeg processes): two gateways on one folder would otherwise both
 * run and silently diverge, and each would reap the other's ffmpeg.
 *
 * The claim is a kernel lock on `{data_dir}/gateway.lock` (`fcntl`
 * open-file-description lock through `fs-native-extensions`), not the file's
 * existence: the kernel drops it when the holder exits, however it exits
 * (SIGKILL and OOM included), so a crash never leaves the folder stuck. The
 * file itself stays and only records the holder's pid and start time for the
 * refusal message.
 *
 * Also keeps the folder owner-only: created 0700, and an existing folder with
 * group or other bits is tightened to 0700 (it holds the state database, keys
 * and session output). A shared sticky folder such as `/tmp` is refused rather
 * than tightened.
 *
 * Throws {@link ConfigError} (the binary prints one `server.data_dir: …` line and exits 2).
 *
 * @example
 * lockDataDir(config.server.data_dir); // before opening state.db or generating keys
 */
export function lockDataDir(dir: string): DataDirLock {
  const problem = (message: string) => new ConfigError([{ path: "server.data_dir", message }]);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const mode = statSync(dir).mode;
    if ((mode & 0o1000) !== 0 && (mode & 0o002) !== 0) {
      throw problem(
        `${dir} is a shared folder (mode ${(mode & 0o7777).toString(8)}); give the gateway a folder of its own`,
      );
    }
    if ((mode & 0o077) !== 0) chmodSync(dir, mode & 0o700);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw problem(`cannot prepare ${dir} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const path = join(dir, DATA_DIR_LOCK_FILE);
  let fd: number;
  try {
    // "a+": never truncate a file another gateway may be describing itself in.
    fd = openSync(path, "a+", 0o600);
  } catch (err) {
    throw problem(`cannot open ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (!fsx.tryLock(fd)) {
    closeSync(fd);
    throw problem(
      `${dir} is in use by another gateway (${holderOf(path)}); each gateway needs its own data_dir`,
    );
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() })}\n`);
  // The descriptor stays open on purpose: closing it would release the lock.
  return { path };
}

/** "pid 1234 since …" from the holder's record, or a neutral phrase when unreadable. */
function holderOf(path: string): string {
  try {
    const record = JSON.parse(readFileSync(path, "utf8")) as {
      pid?: unknown;
      started_at?: unknown;
    };
    if (typeof record.pid === "number")
      return `pid ${record.pid}${typeof record.started_at === "string" ? ` since ${record.started_at}` : ""}`;
  } catch {
    // an older or half-written record: the lock itself is what counts
  }
  return `it holds ${path}`;
}
