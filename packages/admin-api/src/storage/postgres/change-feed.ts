import type { Logger } from "@svc/core/log";
import type { PgStateDb } from "../../db/pg-client.js";
import { stateVersions } from "../../db/schema-pg/index.js";
import type { ChangeFeed, MirroredResource } from "../kernel/change-feed.js";
import { describeDbError } from "./error-text.js";

/**
 * How often the feed reads `state_versions` when no notification came: the
 * fallback of the listener (`change-listener.ts`), which pushes every commit.
 */
export const POLL_INTERVAL_MS = 1_000;

/**
 * The change feed of a shared PostgreSQL database; {@link PgChangeFeed.start}
 * begins polling, {@link PgChangeFeed.notified} is the listener's push.
 */
export interface PgChangeFeed extends ChangeFeed {
  /**
   * Reads the versions every mirror is measured against, then polls. Called
   * before any store loads its mirror, so a write that lands between this read
   * and a store's load costs one extra (idempotent) reload, never a missed one.
   */
  start(): Promise<void>;
  /**
   * Another instance committed a write (a `NOTIFY`), or the listener
   * (re)connected: read the versions now instead of at the next poll. Calls
   * that arrive while a read is under way are folded into one more read.
   */
  notified(): void;
}

interface Watched {
  readonly reloads: (() => Promise<void>)[];
  /** The version the mirror reflects. */
  seen: number;
  /** The newest version some read found: the mirror is behind while `wanted > seen`. */
  wanted: number;
  /** The reload loop in progress: a resource's reloads never overlap. */
  running: Promise<void> | undefined;
}

/**
 * Follows other instances' writes (operator contract "Cluster mode": seen
 * within 1 second, and read-after-write for admin reads). Each write
 * transaction bumps its resource's row of `state_versions` and notifies
 * (`versions.ts`); on a notification, on {@link ChangeFeed.catchUp} and every
 * {@link POLL_INTERVAL_MS} (the fallback) one query reads `state_versions`,
 * and each resource whose version moved gets its reloads run, in order.
 *
 * A reload only counts for the versions that were read before it began: a
 * version found while a reload is running (it may have read the rows before
 * that commit) runs the reloads once more after it. A failed read or reload is
 * logged and tried again on the next notification or poll; the timer never
 * keeps the process alive.
 *
 * @example
 * const feed = createPgChangeFeed(db, { log });
 * await feed.start();
 * feed.watch("channels", () => channels.reload());
 */
export function createPgChangeFeed(
  db: PgStateDb,
  options: { log?: Logger; intervalMs?: number } = {},
): PgChangeFeed {
  return createVersionFeed(async () => {
    const rows = await db.select().from(stateVersions);
    return new Map(rows.map((r) => [r.resource, r.version]));
  }, options);
}

/**
 * The change feed over any `state_versions` table: `readVersions` reads it (PostgreSQL's
 * in a cluster, SQLite's between the workers of one host, docs/cluster.md "Workers").
 */
export function createVersionFeed(
  readVersions: () => Promise<Map<string, number>>,
  options: { log?: Logger; intervalMs?: number } = {},
): PgChangeFeed {
  const { log } = options;
  const intervalMs = options.intervalMs ?? POLL_INTERVAL_MS;
  const watched = new Map<MirroredResource, Watched>();
  let baseline = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let pushed: Promise<void> | undefined;
  let again = false;
  let started = false;
  let closed = false;
  let failing = false;

  const drain = async (resource: MirroredResource, w: Watched) => {
    try {
      while (w.wanted > w.seen && !closed) {
        const target = w.wanted;
        try {
          for (const run of w.reloads) await run();
        } catch (err) {
          log?.error(
            { resource, error: describeDbError(err) },
            `state change feed: reloading ${resource} failed; retrying on the next poll`,
          );
          return;
        }
        w.seen = Math.max(w.seen, target);
      }
    } finally {
      w.running = undefined;
    }
  };

  /** Resolves once the mirror reflects `version` (or its reload failed). */
  const reach = (resource: MirroredResource, w: Watched, version: number): Promise<void> => {
    if (version <= w.seen) return Promise.resolve();
    if (version > w.wanted) w.wanted = version;
    w.running ??= drain(resource, w);
    return w.running;
  };

  /** Reads the versions and starts the due reloads; resolves when those finished. */
  const check = async (): Promise<void> => {
    let versions: Map<string, number>;
    try {
      versions = await readVersions();
    } catch (err) {
      // One line when reading starts failing and one when it recovers, not one a second.
      if (!failing)
        log?.error({ error: describeDbError(err) }, "state change feed: polling failed");
      failing = true;
      return;
    }
    if (failing) log?.info("state change feed: polling again");
    failing = false;
    await Promise.all(
      [...watched].map(([resource, w]) => reach(resource, w, versions.get(resource) ?? 0)),
    );
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      polling = check().finally(() => {
        polling = undefined;
        schedule();
      });
    }, intervalMs);
    timer.unref();
  };

  return {
    async start() {
      if (started || closed) return;
      started = true;
      baseline = await readVersions();
      for (const [resource, w] of watched) {
        w.seen = baseline.get(resource) ?? 0;
        w.wanted = w.seen;
      }
      schedule();
    },
    notified() {
      if (!started || closed) return;
      if (pushed !== undefined) {
        again = true;
        return;
      }
      pushed = (async () => {
        do {
          again = false;
          await check();
        } while (again && !closed);
      })().finally(() => {
        pushed = undefined;
      });
    },
    watch(resource, run) {
      let w = watched.get(resource);
      if (w === undefined) {
        const seen = baseline.get(resource) ?? 0;
        w = { reloads: [], seen, wanted: seen, running: undefined };
        watched.set(resource, w);
      }
      w.reloads.push(run);
    },
    async catchUp() {
      if (!started || closed) return;
      // Read after the caller's moment: every write acknowledged before it is counted.
      await check();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await polling;
      await pushed;
      await Promise.all([...watched.values()].map((w) => w.running));
    },
  };
}
