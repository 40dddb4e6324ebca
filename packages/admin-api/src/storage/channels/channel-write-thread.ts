import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** One step of a channel transaction, run by the writer thread. */
export type WriteStep =
  | { readonly op: "begin" }
  | { readonly op: "run"; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly op: "commit" }
  | { readonly op: "rollback" };

type Reply =
  | { readonly ok: true; readonly changes: number }
  | { readonly ok: false; readonly error: string };

/** A writer thread: its own connection to the state database, one step at a time. */
export interface ChannelWriteThread {
  /** Runs one step and resolves with the rows it changed; rejects with the database error. */
  step(step: WriteStep): Promise<number>;
  /** Ends the thread (its connection closes, rolling back an open transaction). */
  close(): Promise<void>;
  /** True once the thread died or was closed: every further step fails. */
  readonly ended: boolean;
}

/**
 * The thread's code. It runs in a worker started from a string (`eval`), not from a file:
 * the apps are bundled into one `main.js`, so no module of this package exists beside it at
 * run time. Self-contained for that reason: it reaches nothing of this module, only what it
 * is given (`require`, the driver's resolved path and the file in `workerData`).
 */
function writerThread(require: NodeJS.Require): void {
  const { parentPort, workerData } =
    require("node:worker_threads") as typeof import("node:worker_threads");
  const Database = require(workerData.driver) as typeof import("better-sqlite3");
  const db = new Database(workerData.file);
  // The same settings as the gateway's own connection (db/client.ts): a commit is durable
  // before it is acknowledged, and a busy database is waited for (here, off the event loop).
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  db.pragma("synchronous = FULL");
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  const prepared = new Map<string, import("better-sqlite3").Statement>();
  parentPort?.on("message", (step: WriteStep) => {
    try {
      let changes = 0;
      if (step.op === "begin") begin.run();
      else if (step.op === "commit") commit.run();
      else if (step.op === "rollback") {
        if (db.inTransaction) rollback.run();
      } else {
        // SQLite rolls a whole transaction back by itself on some errors (SQLITE_FULL,
        // IOERR…); a statement run after that would commit on its own.
        if (!db.inTransaction)
          throw new Error("the channel transaction was rolled back by SQLite before it ended");
        let statement = prepared.get(step.sql);
        if (statement === undefined) {
          statement = db.prepare(step.sql);
          prepared.set(step.sql, statement);
        }
        changes = statement.run(step.params as unknown[]).changes;
      }
      parentPort.postMessage({ ok: true, changes });
    } catch (err) {
      parentPort.postMessage({
        ok: false,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  });
}

/**
 * Starts a writer thread on the SQLite file `file`. better-sqlite3 is synchronous: a
 * transaction of 165,000 channel rows (a 32 MiB M3U apply) spends 0.2-0.5 s in its `COMMIT`
 * alone (the WAL's fsync and the checkpoint that follows), one call the event loop cannot
 * split (issue 30 item 1). On this thread that call holds nothing the players wait for.
 */
export function startChannelWriteThread(file: string): ChannelWriteThread {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(`(${writerThread.toString()})(require)`, {
    eval: true,
    workerData: { driver, file },
  });
  // Idle between writes: the thread never keeps the process alive.
  worker.unref();
  let pending: { resolve(n: number): void; reject(e: Error): void } | undefined;
  let failed: Error | undefined;
  const fail = (err: Error) => {
    failed = err;
    pending?.reject(err);
    pending = undefined;
  };
  worker.on("message", (reply: Reply) => {
    const p = pending;
    pending = undefined;
    worker.unref();
    if (reply.ok) p?.resolve(reply.changes);
    else p?.reject(new Error(reply.error));
  });
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the channel writer thread exited (${code})`)));
  return {
    step(step) {
      if (failed !== undefined) return Promise.reject(failed);
      if (pending !== undefined)
        return Promise.reject(new Error("a write step is already running"));
      return new Promise<number>((resolve, reject) => {
        pending = { resolve, reject };
        // Referenced while a step runs: a transaction in flight keeps the process alive.
        worker.ref();
        worker.postMessage(step);
      });
    },
    async close() {
      if (failed === undefined) await worker.terminate();
    },
    get ended() {
      return failed !== undefined;
    },
  };
}

const threads = new WeakMap<object, ChannelWriteThread>();

/** The writer thread of a better-sqlite3 connection (started on first use), on its file. */
export function channelWriteThreadOf(client: { readonly name: string }): ChannelWriteThread {
  let thread = threads.get(client);
  if (thread === undefined || thread.ended) {
    thread = startChannelWriteThread(client.name);
    threads.set(client, thread);
  }
  return thread;
}

/** Ends the connection's writer thread, if it has one (before the connection closes). */
export async function closeChannelWriteThread(client: object): Promise<void> {
  const thread = threads.get(client);
  threads.delete(client);
  await thread?.close();
}
