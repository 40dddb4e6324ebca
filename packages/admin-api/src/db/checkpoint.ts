import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * Copies the state database's WAL into the database file on a worker thread.
 *
 * The gateway's connection runs with `wal_autocheckpoint = 0`: SQLite would
 * otherwise checkpoint inside the COMMIT that pushes the WAL past 1000 pages,
 * a synchronous copy of the whole WAL (for a 32 MiB import, about half the
 * COMMIT's CPU time) on the event loop. Here a second better-sqlite3 connection
 * on its own thread runs `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`,
 * which never blocks the gateway's writer or readers. Once a checkpoint has
 * copied every frame and no reader needs them, the next write starts the WAL
 * over, so the file stays bounded by what one interval writes.
 */
export interface WalCheckpointer {
  /** Stops the timer and the worker; idempotent. */
  stop(): void;
}

// The worker is evaluated from a string (a CommonJS script): the gateway apps
// are bundled into one file, so a separate worker module would not be beside it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 1000");
parentPort.on("message", () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message) });
  }
});
`;

/** Checkpoint cadence when the caller names none. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 1000;

/**
 * Starts the checkpoint worker for `file`. `onFailure` runs once if the worker
 * cannot run (it then stops); the caller falls back to SQLite's own checkpoints.
 */
export function startWalCheckpointer(
  file: string,
  onFailure: (error: Error) => void,
  intervalMs = DEFAULT_CHECKPOINT_INTERVAL_MS,
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
  worker.unref();
  let stopped = false;
  let inFlight = false;
  const fail = (error: Error) => {
    if (stopped) return;
    stop();
    onFailure(error);
  };
  worker.on("message", (reply: { ok: boolean; message?: string }) => {
    inFlight = false;
    // SQLITE_BUSY and the like: the next tick tries again.
    if (!reply.ok && reply.message !== undefined && !/busy|locked/i.test(reply.message)) {
      fail(new Error(`WAL checkpoint failed: ${reply.message}`));
    }
  });
  worker.on("error", fail);
  worker.on("exit", (code) => {
    if (!stopped) fail(new Error(`WAL checkpoint worker exited with code ${code}`));
  });
  const timer = setInterval(() => {
    if (inFlight || stopped) return;
    inFlight = true;
    worker.postMessage("checkpoint");
  }, intervalMs);
  timer.unref();
  function stop() {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    void worker.terminate();
  }
  return { stop };
}
