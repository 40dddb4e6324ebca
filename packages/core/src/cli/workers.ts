import cluster, { type Worker } from "node:cluster";
import {
  type FoldedDenials,
  localUnknownTokenFold,
  type SharedUnknownTokenFold,
} from "../auth/unknown-token-fold.js";
import type { Logger } from "../base/log.js";

/**
 * `server.workers` > 1 (docs/cluster.md "Workers"): the started process is a small primary
 * that forks the gateway workers (`node:cluster`, which hands connections of the shared
 * listening ports to them in turn), restarts a worker that dies, relays the workers'
 * change-feed pushes, holds the gateway's unknown-token fold, and stops them all on
 * SIGTERM/SIGINT. It serves nothing itself.
 */

/** The environment variable that names a worker's slot (1..N), set by the primary. */
export const WORKER_INDEX_ENV = "SVC_WORKER_INDEX";

/** Messages between a worker and the primary (IPC of `node:cluster`). */
type WorkerMessage =
  | { readonly svc: "listening"; readonly urls: readonly string[] }
  /** A worker committed a write of `resource` (to the primary; then to each other worker, with `from`). */
  | {
      readonly svc: "state";
      readonly resource: string;
      readonly seq: number;
      readonly from?: number;
    }
  /** A worker caught up on a push (to the primary, naming the writer's `from` and `seq`). */
  | { readonly svc: "state-done"; readonly seq: number; readonly from: number }
  /** Every other worker caught up (primary to the writer). */
  | { readonly svc: "state-ack"; readonly seq: number }
  /** The workers' write lock: asked for, granted (primary to the worker), given back. */
  | { readonly svc: "lock"; readonly id: number }
  | { readonly svc: "lock-granted"; readonly id: number }
  | { readonly svc: "unlock"; readonly id: number }
  /**
   * A gather of `what` (`/metrics`, `/v1/status`): asked by a worker (to the primary), then
   * asked of each other worker (with `from`, the asker's worker id).
   */
  | { readonly svc: "gather"; readonly id: number; readonly what: string; readonly from?: number }
  /** A worker's part of a gather (to the primary). */
  | {
      readonly svc: "gathered";
      readonly id: number;
      readonly from: number;
      readonly part: unknown;
    }
  /** The parts that arrived in time and how many workers did not answer (primary to the asker). */
  | {
      readonly svc: "gather-done";
      readonly id: number;
      readonly parts: readonly unknown[];
      readonly missing: number;
    }
  /** The unknown-token fold, which the primary holds: may this denial be its own record? */
  | { readonly svc: "fold"; readonly id: number; readonly client: string; readonly at: number }
  | { readonly svc: "fold-admit"; readonly id: number; readonly admit: boolean }
  /** End the fold's window now (a worker's audit listing). */
  | { readonly svc: "fold-close"; readonly id: number }
  /**
   * A window's summary for the worker to write: the answer to its `fold-close`, or (`id` 0)
   * a window that ended by time, sent to one listening worker.
   */
  | { readonly svc: "folded"; readonly id: number; readonly folded: FoldedDenials | undefined };

function isWorkerMessage(m: unknown): m is WorkerMessage {
  return typeof m === "object" && m !== null && typeof (m as { svc?: unknown }).svc === "string";
}

/** A worker's side of the link to the primary; undefined in a process that is no worker. */
export interface WorkerLink {
  /** The worker's slot, 1..N: its restarts keep it; log lines carry it as `worker`. */
  readonly index: number;
  /** The gateway's start (the primary's, epoch ms): `uptime_sec` counts from it on every worker. */
  readonly startedAt: number;
  /** Tells the primary the listeners are up (the primary prints `listening on` once). */
  listening(urls: readonly string[]): void;
  /**
   * Tells every other worker that `resource` changed (through the primary); resolves once
   * each of them caught up (or after {@link PUSH_WAIT_MS}, the poll's business then).
   */
  push(resource: string): Promise<void>;
  /** Runs `handler` when another worker pushed a change; its end is reported back. */
  onPush(handler: (resource: string) => Promise<void>): void;
  /**
   * Runs `task` holding the workers' one write lock (granted by the primary in the order
   * asked; given back when `task` settles, or by the primary when this worker dies). Every
   * write of a worker to the shared SQLite file runs under it, so no worker meets another's
   * write lock in SQLite, where better-sqlite3 would wait with the event loop stopped.
   */
  exclusiveWrite<T>(task: () => Promise<T>): Promise<T>;
  /**
   * Asks every other worker for its part of `what` (through the primary, which waits at
   * most {@link GATHER_WAIT_MS} for them): resolves with the parts that arrived and the
   * number of workers that did not answer in time. Never rejects.
   */
  gather(what: string): Promise<Gathered>;
  /** Answers the other workers' gathers: `handler` gives this worker's part of `what`. */
  onGather(handler: (what: string) => Promise<unknown> | unknown): void;
  /**
   * The gateway's one unknown-token fold, held by the primary: the budget of individual
   * audit records is the gateway's, whatever worker each denial reached. A primary that
   * does not answer within {@link GATHER_WAIT_MS} counts as a fold (the record is folded).
   */
  readonly fold: SharedUnknownTokenFold;
}

/** What {@link WorkerLink.gather} collected from the other workers. */
export interface Gathered {
  /** One part per worker that answered in time (structured-clone copies). */
  readonly parts: readonly unknown[];
  /** Workers that were asked and did not answer in time (0 when every one did). */
  readonly missing: number;
}

/**
 * How long the primary waits for the other workers' parts of a gather before it answers
 * the asker with what arrived (a `/metrics` scrape or `/v1/status` is then partial).
 */
export const GATHER_WAIT_MS = 1_000;

/**
 * The environment variable with the primary's start (epoch milliseconds), set on every
 * worker it forks: the gateway's `uptime_sec` counts from it, whatever worker answers.
 */
export const WORKERS_STARTED_AT_ENV = "SVC_WORKERS_STARTED_AT";

/** This process's link when it is a worker the primary forked, else undefined. */
export function workerLink(): WorkerLink | undefined {
  const index = Number(process.env[WORKER_INDEX_ENV]);
  if (!cluster.isWorker || !Number.isInteger(index) || index < 1) return undefined;
  const send = (m: WorkerMessage) => {
    // A primary gone (the worker is about to exit with it) is not this worker's error.
    if (process.connected) process.send?.(m, undefined, undefined, () => {});
  };
  const waiting = new Map<number, () => void>();
  const granted = new Map<number, () => void>();
  /** Gathers and fold questions waiting for the primary's answer, by id. */
  const asking = new Map<number, (answer: unknown) => void>();
  let writeFolded: (folded: FoldedDenials) => void = () => {};
  let seq = 0;
  let lockSeq = 0;
  let askSeq = 0;
  process.on("message", (m: unknown) => {
    if (!isWorkerMessage(m)) return;
    if (m.svc === "state-ack") waiting.get(m.seq)?.();
    else if (m.svc === "lock-granted") granted.get(m.id)?.();
    else if (m.svc === "gather-done") asking.get(m.id)?.({ parts: m.parts, missing: m.missing });
    else if (m.svc === "fold-admit") asking.get(m.id)?.(m.admit);
    else if (m.svc === "folded") {
      if (m.id !== 0) asking.get(m.id)?.(m.folded);
      else if (m.folded !== undefined) writeFolded(m.folded);
    }
  });
  /** Sends `message` and resolves with the primary's answer, or `otherwise` after `waitMs`. */
  const ask = <T>(message: (id: number) => WorkerMessage, otherwise: T, waitMs: number) =>
    new Promise<T>((resolve) => {
      askSeq += 1;
      const id = askSeq;
      const done = (answer: unknown) => {
        clearTimeout(timer);
        asking.delete(id);
        resolve(answer as T);
      };
      const timer = setTimeout(() => done(otherwise), waitMs);
      timer.unref();
      asking.set(id, done);
      send(message(id));
    });
  const startedAt = Number(process.env[WORKERS_STARTED_AT_ENV]);
  return {
    index,
    startedAt: Number.isFinite(startedAt) && startedAt > 0 ? startedAt : Date.now(),
    listening: (urls) => send({ svc: "listening", urls }),
    push: (resource) =>
      new Promise<void>((resolve) => {
        seq += 1;
        const mine = seq;
        const done = () => {
          clearTimeout(timer);
          waiting.delete(mine);
          resolve();
        };
        const timer = setTimeout(done, PUSH_WAIT_MS);
        timer.unref();
        waiting.set(mine, done);
        send({ svc: "state", resource, seq: mine });
      }),
    async exclusiveWrite(task) {
      lockSeq += 1;
      const id = lockSeq;
      await new Promise<void>((resolve) => {
        granted.set(id, resolve);
        send({ svc: "lock", id });
      });
      granted.delete(id);
      try {
        return await task();
      } finally {
        send({ svc: "unlock", id });
      }
    },
    // The primary answers within GATHER_WAIT_MS; the longer bound is for a primary gone.
    gather: (what) =>
      ask<Gathered>(
        (id) => ({ svc: "gather", id, what }),
        { parts: [], missing: 0 },
        GATHER_WAIT_MS * 2,
      ),
    onGather(handler) {
      process.on("message", (m: unknown) => {
        if (!isWorkerMessage(m) || m.svc !== "gather" || m.from === undefined) return;
        const { id, from } = m;
        Promise.resolve()
          .then(() => handler(m.what))
          .then(
            (part) => send({ svc: "gathered", id, from, part }),
            // A part that failed is a worker that did not answer: the primary counts it missing.
            () => undefined,
          );
      });
    },
    fold: {
      admit: (client, at) => ask((id) => ({ svc: "fold", id, client, at }), false, GATHER_WAIT_MS),
      close: () =>
        ask<FoldedDenials | undefined>(
          (id) => ({ svc: "fold-close", id }),
          undefined,
          GATHER_WAIT_MS,
        ),
      onWindowEnd: (write) => {
        writeFolded = write;
      },
      stop: () => {},
    },
    onPush(handler) {
      process.on("message", (m: unknown) => {
        if (!isWorkerMessage(m) || m.svc !== "state" || m.from === undefined) return;
        const { seq: s, from } = m;
        handler(m.resource)
          .catch(() => undefined)
          .finally(() => send({ svc: "state-done", seq: s, from }));
      });
    },
  };
}

/**
 * How long a writer waits for the other workers to catch up on its write before it
 * answers anyway (a worker stuck that long is caught up by its 1 s poll).
 */
export const PUSH_WAIT_MS = 2_000;

/** Backoff of a worker's restart: doubles from 250 ms to 10 s, back to 250 ms after a calm minute. */
const RESTART_MIN_MS = 250;
const RESTART_MAX_MS = 10_000;
const CALM_MS = 60_000;
/** Deaths in a row before listening at which the primary gives up (a crash loop at start). */
const MAX_FAILED_STARTS = 5;
/** The contract's stop budget: the workers get this long, then are killed. */
const STOP_BUDGET_MS = 9_500;

interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  listening: boolean;
  startedAt: number;
  delayMs: number;
  failedStarts: number;
}

/**
 * Runs the primary until the workers stopped; never returns normally (it exits). The
 * first worker starts alone and the others once it listens, so migrations, generated
 * keys and the config file's channel import happen once, in one process.
 */
export function runPrimary(options: { count: number; log: Logger }): void {
  const { count } = options;
  const log = options.log.child({ worker: 0 });
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    worker: undefined,
    listening: false,
    startedAt: 0,
    delayMs: RESTART_MIN_MS,
    failedStarts: 0,
  }));
  let printed = false;
  let stopping = false;
  /** The gateway's start: every worker's `uptime_sec` counts from it. */
  const startedAt = Date.now();

  /** Pushes under way: `${writer id}:${seq}` → the workers that have not caught up yet. */
  const pushes = new Map<string, { writer: Worker; seq: number; left: Set<number> }>();
  const settle = (key: string) => {
    const p = pushes.get(key);
    if (p === undefined || p.left.size > 0) return;
    pushes.delete(key);
    if (p.writer.isConnected())
      p.writer.send({ svc: "state-ack", seq: p.seq }, undefined, () => {});
  };
  const relay = (writer: Worker, resource: string, seq: number) => {
    const key = `${writer.id}:${seq}`;
    const left = new Set<number>();
    pushes.set(key, { writer, seq, left });
    for (const s of slots) {
      const w = s.worker;
      if (w === undefined || w === writer || !w.isConnected()) continue;
      left.add(w.id);
      w.send({ svc: "state", resource, seq, from: writer.id }, undefined, () => {});
    }
    settle(key);
  };
  const caughtUp = (worker: Worker, from: number, seq: number) => {
    const key = `${from}:${seq}`;
    pushes.get(key)?.left.delete(worker.id);
    settle(key);
  };
  /**
   * The workers' write lock ({@link WorkerLink.exclusiveWrite}): its holder and the
   * workers waiting for it, in the order they asked.
   */
  let holder: { readonly worker: Worker; readonly id: number } | undefined;
  const lockQueue: { readonly worker: Worker; readonly id: number }[] = [];
  const grantNext = () => {
    while (holder === undefined && lockQueue.length > 0) {
      const next = lockQueue.shift()!;
      if (!next.worker.isConnected()) continue;
      holder = next;
      next.worker.send({ svc: "lock-granted", id: next.id }, undefined, () => {});
    }
  };
  const lock = (worker: Worker, id: number) => {
    lockQueue.push({ worker, id });
    grantNext();
  };
  const unlock = (worker: Worker, id: number) => {
    if (holder?.worker !== worker || holder.id !== id) return;
    holder = undefined;
    grantNext();
  };

  /**
   * Gathers under way ({@link WorkerLink.gather}): `${asker id}:${id}` → the workers not
   * heard from yet and the parts that arrived. Answered when the last part arrives, or
   * after GATHER_WAIT_MS with what did.
   */
  const gathers = new Map<
    string,
    { asker: Worker; id: number; left: Set<number>; parts: unknown[]; timer: NodeJS.Timeout }
  >();
  const gatherDone = (key: string, force: boolean) => {
    const g = gathers.get(key);
    if (g === undefined || (g.left.size > 0 && !force)) return;
    gathers.delete(key);
    clearTimeout(g.timer);
    if (g.left.size > 0)
      log.warn(
        { missing: g.left.size },
        `gather: ${g.left.size} worker(s) did not answer within ${GATHER_WAIT_MS} ms`,
      );
    if (g.asker.isConnected())
      g.asker.send(
        { svc: "gather-done", id: g.id, parts: g.parts, missing: g.left.size },
        undefined,
        () => {},
      );
  };
  const gather = (asker: Worker, id: number, what: string) => {
    const key = `${asker.id}:${id}`;
    const left = new Set<number>();
    const timer = setTimeout(() => gatherDone(key, true), GATHER_WAIT_MS);
    timer.unref();
    gathers.set(key, { asker, id, left, parts: [], timer });
    for (const s of slots) {
      const w = s.worker;
      // A worker not listening yet (starting or restarting) has nothing to give.
      if (w === undefined || w === asker || !s.listening || !w.isConnected()) continue;
      left.add(w.id);
      w.send({ svc: "gather", id, what, from: asker.id }, undefined, () => {});
    }
    gatherDone(key, false);
  };
  const gathered = (worker: Worker, from: number, id: number, part: unknown) => {
    const key = `${from}:${id}`;
    const g = gathers.get(key);
    if (g === undefined || !g.left.delete(worker.id)) return;
    g.parts.push(part);
    gatherDone(key, false);
  };

  /**
   * The gateway's one unknown-token fold ({@link WorkerLink.fold}). A window that ends by
   * time is written by one listening worker; one that a listing ends, by the asker.
   */
  const writeFolded = (folded: FoldedDenials) => {
    const writer = slots.find((s) => s.listening && s.worker?.isConnected())?.worker;
    writer?.send({ svc: "folded", id: 0, folded }, undefined, () => {});
  };
  const fold = localUnknownTokenFold();
  fold.onWindowEnd(writeFolded);

  /** A worker gone: nobody waits for it any more, and what it held or asked for is let go. */
  const forget = (worker: Worker) => {
    for (const [key, p] of pushes) {
      p.left.delete(worker.id);
      settle(key);
    }
    // A gone worker's part will not come (its counters went with it); its own gathers end.
    for (const [key, g] of gathers) {
      if (g.asker === worker) {
        clearTimeout(g.timer);
        gathers.delete(key);
        continue;
      }
      g.left.delete(worker.id);
      gatherDone(key, false);
    }
    for (let i = lockQueue.length - 1; i >= 0; i--)
      if (lockQueue[i]?.worker === worker) lockQueue.splice(i, 1);
    if (holder?.worker === worker) {
      // Its SQLite connection closed with the process: an open transaction rolled back.
      holder = undefined;
      grantNext();
    }
  };

  const fork = (slot: Slot) => {
    slot.listening = false;
    slot.startedAt = Date.now();
    const worker = cluster.fork({
      [WORKER_INDEX_ENV]: String(slot.index),
      [WORKERS_STARTED_AT_ENV]: String(startedAt),
    });
    slot.worker = worker;
    worker.on("message", (m: unknown) => {
      if (!isWorkerMessage(m)) return;
      if (m.svc === "state") relay(worker, m.resource, m.seq);
      else if (m.svc === "state-done") caughtUp(worker, m.from, m.seq);
      else if (m.svc === "listening") listened(slot, m.urls);
      else if (m.svc === "lock") lock(worker, m.id);
      else if (m.svc === "unlock") unlock(worker, m.id);
      else if (m.svc === "gather") gather(worker, m.id, m.what);
      else if (m.svc === "gathered") gathered(worker, m.from, m.id, m.part);
      else if (m.svc === "fold")
        worker.send(
          { svc: "fold-admit", id: m.id, admit: fold.admit(m.client, m.at) },
          undefined,
          () => {},
        );
      else if (m.svc === "fold-close")
        worker.send(
          { svc: "folded", id: m.id, folded: fold.close(Date.now()) },
          undefined,
          () => {},
        );
    });
    worker.on("exit", (code, signal) => exited(slot, worker, code, signal));
  };

  const listened = (slot: Slot, urls: readonly string[]) => {
    slot.listening = true;
    slot.failedStarts = 0;
    log.info({ slot: slot.index, pid: slot.worker?.process.pid }, `worker ${slot.index} listening`);
    if (!printed && slot.index === 1)
      // The others start once the first one migrated the database and wrote its keys.
      for (const s of slots) if (s.worker === undefined && !stopping) fork(s);
    if (!printed && slots.every((s) => s.listening)) {
      printed = true;
      log.info({ summary: { workers: count } }, `workers: ${count} listening`);
      for (const url of urls) process.stdout.write(`listening on ${url}\n`);
    }
  };

  const exited = (slot: Slot, worker: Worker, code: number | null, signal: string | null) => {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    forget(worker);
    if (stopping) {
      if (slots.every((s) => s.worker === undefined)) finish(0);
      return;
    }
    const wasListening = slot.listening;
    slot.listening = false;
    if (!wasListening) slot.failedStarts += 1;
    // Before the gateway ever listened, a worker that fails to start is the config's or the
    // machine's problem (exit 2: a config error): stop with its status rather than loop.
    if (!printed || slot.failedStarts >= MAX_FAILED_STARTS) {
      log.error(
        { slot: slot.index, code, signal, failed_starts: slot.failedStarts },
        `worker ${slot.index} exited (${signal ?? `code ${code}`}) before it listened; stopping`,
      );
      stopAll(code !== null && code !== 0 ? code : 1);
      return;
    }
    if (Date.now() - slot.startedAt >= CALM_MS) slot.delayMs = RESTART_MIN_MS;
    const delay = slot.delayMs;
    slot.delayMs = Math.min(RESTART_MAX_MS, slot.delayMs * 2);
    log.warn(
      { slot: slot.index, code, signal, restart_in_ms: delay },
      `worker ${slot.index} exited (${signal ?? `code ${code}`}); restarting it in ${delay} ms`,
    );
    setTimeout(() => {
      if (!stopping) fork(slot);
    }, delay);
  };

  let exitCode = 0;
  const finish = (code: number) => {
    log.flush();
    process.exit(exitCode !== 0 ? exitCode : code);
  };

  const stopAll = (code: number, signal: NodeJS.Signals = "SIGTERM") => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const running = slots.filter((s) => s.worker !== undefined);
    if (running.length === 0) finish(code);
    for (const s of running) s.worker?.process.kill(signal);
    const hard = setTimeout(() => {
      for (const s of slots) s.worker?.process.kill("SIGKILL");
      finish(code === 0 ? 1 : code);
    }, STOP_BUDGET_MS);
    hard.unref();
  };

  const stop = (signal: NodeJS.Signals) => {
    log.info({ signal }, "shutting down the workers");
    stopAll(0, signal);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  log.info({ summary: { workers: count } }, `workers: starting ${count} gateway processes`);
  const first = slots[0];
  if (first !== undefined) fork(first);
}
