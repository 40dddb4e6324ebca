import { redactDatabaseUrl } from "@svc/core/config";
import type { Logger } from "@svc/core/log";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { PgStateDb } from "../../db/pg-client.js";
import * as pgSchema from "../../db/schema-pg/index.js";
import type { PostgresStorage } from "../kernel/storage-types.js";
import { createPgChangeFeed } from "./change-feed.js";
import { createChangeListener } from "./change-listener.js";
import { describeDbError, withoutSecrets } from "./error-text.js";
import { migrateUnderLock } from "./migrate.js";

/** Connections one instance holds at most: requests queue for one rather than swamp the server. */
export const POOL_SIZE = 10;

/** How long a new connection may take: a dead server fails the start in seconds, not a hang. */
export const CONNECT_TIMEOUT_MS = 5_000;

export interface PostgresStorageOptions {
  /** The change feed's poll interval (default: `POLL_INTERVAL_MS`, 1 s). */
  readonly pollIntervalMs?: number;
}

/**
 * Opens the shared PostgreSQL state database of `server.database_url`
 * (operator contract "Cluster mode"): a bounded connection pool, the committed
 * migrations applied under an advisory lock, and the change feed that keeps
 * this instance's mirrors in step with the others. Rejects with a one-line
 * error (server unreachable, login refused, migrations failed) that names the
 * server without its password; the password never reaches a log line, an
 * error or {@link PostgresStorage.location}.
 *
 * @example
 * const storage = await openPostgresStorage(config.server.database_url, log);
 * log.info(`state database: ${storage.location}`); // postgres://svc@db:5432/svc
 */
export async function openPostgresStorage(
  url: string,
  log?: Logger,
  options: PostgresStorageOptions = {},
): Promise<PostgresStorage> {
  const location = redactDatabaseUrl(url);
  const fail = (what: string, err: unknown) =>
    new Error(`${what} PostgreSQL at ${location}: ${withoutSecrets(describeDbError(err), url)}`);
  const connection = {
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A server that vanished without closing the socket is noticed by TCP keepalive.
    keepAlive: true,
  };
  const pool = new pg.Pool({
    ...connection,
    max: POOL_SIZE,
    idleTimeoutMillis: 30_000,
    application_name: "svc-gateway",
  });
  // An idle connection the server dropped emits here; unhandled it would end the process.
  pool.on("error", (err) =>
    log?.warn(
      { error: withoutSecrets(describeDbError(err), url) },
      "state database: an idle PostgreSQL connection failed",
    ),
  );
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => {});
    throw fail("cannot connect to", err);
  }
  let applied: number;
  try {
    applied = await migrateUnderLock(client);
    client.release();
  } catch (err) {
    // Destroyed, not pooled: the connection may still hold the lock or an aborted transaction.
    client.release(true);
    await pool.end().catch(() => {});
    throw fail("migrations failed on", err);
  }
  if (applied > 0)
    log?.info({ migrations: applied }, `state database: ${applied} migration(s) applied`);
  const db = drizzle(pool, { schema: pgSchema }) as PgStateDb;
  const feed = createPgChangeFeed(db, {
    ...(log === undefined ? {} : { log }),
    ...(options.pollIntervalMs === undefined ? {} : { intervalMs: options.pollIntervalMs }),
  });
  try {
    await feed.start();
  } catch (err) {
    await pool.end().catch(() => {});
    throw fail("cannot read state_versions on", err);
  }
  // The push half of the feed: one connection outside the pool LISTENs, so another
  // instance's commit reaches the mirrors in one round trip, not at the next poll.
  // Its own failures are logged and retried; the poll keeps the mirrors in step meanwhile.
  const listener = createChangeListener({
    client: () => new pg.Client({ ...connection, application_name: "svc-gateway-listen" }),
    onChange: () => feed.notified(),
    describeError: (err) => withoutSecrets(describeDbError(err), url),
    ...(log === undefined ? {} : { log }),
  });
  await listener.start();
  let closing: Promise<void> | undefined;
  return {
    kind: "postgres",
    location,
    pg: db,
    feed,
    close() {
      closing ??= (async () => {
        await listener.close();
        await feed.close();
        await pool.end();
      })();
      return closing;
    },
  };
}
