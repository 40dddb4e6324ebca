import { setTimeout as sleep } from "node:timers/promises";

/**
 * The least time between two catch-ups a miss may start: a flood of made-up credentials costs
 * the database at most one read of `state_versions` (a handful of rows) per interval and
 * instance, and a credential created on another instance a moment ago waits at most this long
 * plus one read on its first use here.
 */
export const MISS_CATCH_UP_INTERVAL_MS = 100;

/**
 * Read-after-write for the credential gate in cluster mode (operator contract "Cluster
 * mode"). API tokens and playback keys are checked against the in-memory mirror; a credential
 * created on another instance reaches it by `NOTIFY` a few milliseconds later, so its first
 * use here could be refused. On a miss (a well-formed credential no mirror entry has) the gate
 * awaits this and checks once more: the mirrors are caught up with PostgreSQL by a read that
 * starts after the miss arrived.
 *
 * Misses share catch-ups: all those that arrive before one starts wait for it, one runs at a
 * time, and two start at least `minIntervalMs` apart, so unknown credentials cannot hammer the
 * database however many arrive. `onRun` is told of each one started (a metric).
 *
 * @example
 * const missed = createMissCatchUp(() => feed.catchUp(), { onRun: () => metrics.credentialCatchUp() });
 * if (check.token === undefined) { await missed(); check = authenticateApiToken(tokens, bearer); }
 */
export function createMissCatchUp(
  catchUp: () => Promise<void>,
  options: { minIntervalMs?: number; onRun?: () => void } = {},
): () => Promise<void> {
  const interval = options.minIntervalMs ?? MISS_CATCH_UP_INTERVAL_MS;
  let lastStart = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | undefined;
  /** The catch-up that has not started yet: every miss arriving now waits for this one. */
  let next: Promise<void> | undefined;
  const start = async () => {
    // One in flight at a time; it may have read the versions before this miss's write.
    await running;
    const wait = lastStart + interval - performance.now();
    if (wait > 0) await sleep(wait);
    // From here on a new miss waits for the following catch-up: this one may read too soon.
    next = undefined;
    lastStart = performance.now();
    options.onRun?.();
    // The feed's catchUp resolves even when the database cannot be read (the mirror answers).
    const run = catchUp().catch(() => {});
    running = run;
    await run;
    if (running === run) running = undefined;
  };
  return () => {
    next ??= start();
    return next;
  };
}
