import type { Logger } from "@svc/core/log";
import type { PgStateDb } from "../../db/pg-client.js";
import { stateVersions } from "../../db/schema-pg/index.js";
import type { ChangeFeed, MirroredResource } from "../change-feed.js";
import { describeDbError } from "./error-text.js";

/** How often the feed reads `state_versions`: well inside the contract's 2 seconds. */
export const POLL_INTERVAL_MS = 1_000;

/** The change feed of a shared PostgreSQL database; {@link PgChangeFeed.start} begins polling. */
export interface PgChangeFeed extends ChangeFeed {
  /**
   * Reads the versions every mirror is measured against, then polls. Called
   * before any store loads its mirror, so a write that lands between this read
   * and a store's load costs one extra (idempotent) reload, never a missed one.
   */
  start(): Promise<void>;
}

interface Watched {
  readonly reloads: (() => Promise<void>)[];
  /** The version the mirror reflects. */
  seen: number;
  /** The reload in progress: a resource's reloads never overlap. */
  running: Promise<void> | undefined;
}

/**
 * Follows other instances' writes (operator contract "Cluster mode": seen
 * within 2 seconds): every {@link POLL_INTERVAL_MS} one query reads
 * `state_versions` (each write transaction bumps its resource's row, see
 * `versions.ts`), and each resource whose version moved gets its reloads run,
 * in order. A failed read or reload is logged and tried again on the next
 * poll; the timer never keeps the process alive.
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
  const { log } = options;
  const intervalMs = options.intervalMs ?? POLL_INTERVAL_MS;
  const watched = new Map<MirroredResource, Watched>();
  let baseline = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let started = false;
  let closed = false;
  let failing = false;

  const readVersions = async () => {
    const rows = await db.select().from(stateVersions);
    return new Map(rows.map((r) => [r.resource, r.version]));
  };

  const reload = async (resource: MirroredResource, w: Watched, version: number) => {
    try {
      for (const run of w.reloads) await run();
      w.seen = version;
    } catch (err) {
      log?.error(
        { resource, error: describeDbError(err) },
        `state change feed: reloading ${resource} failed; retrying on the next poll`,
      );
    } finally {
      w.running = undefined;
    }
  };

  const poll = async () => {
    let versions: Map<string, number>;
    try {
      versions = await readVersions();
    } catch (err) {
      // One line when polling starts failing and one when it recovers, not one a second.
      if (!failing)
        log?.error({ error: describeDbError(err) }, "state change feed: polling failed");
      failing = true;
      return;
    }
    if (failing) log?.info("state change feed: polling again");
    failing = false;
    for (const [resource, w] of watched) {
      const version = versions.get(resource) ?? 0;
      if (version === w.seen || w.running !== undefined) continue;
      w.running = reload(resource, w, version);
    }
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      polling = poll().finally(() => {
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
      for (const [resource, w] of watched) w.seen = baseline.get(resource) ?? 0;
      schedule();
    },
    watch(resource, run) {
      let w = watched.get(resource);
      if (w === undefined) {
        w = { reloads: [], seen: baseline.get(resource) ?? 0, running: undefined };
        watched.set(resource, w);
      }
      w.reloads.push(run);
    },
    async catchUp() {
      if (!started || closed) return;
      // A poll already reading may have read before the caller's moment: read again after it.
      await polling;
      await poll();
      await Promise.all([...watched.values()].map((w) => w.running));
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await polling;
      await Promise.all([...watched.values()].map((w) => w.running));
    },
  };
}
