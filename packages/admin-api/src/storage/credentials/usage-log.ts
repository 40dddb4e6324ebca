import { eq, sql } from "drizzle-orm";
import * as sqliteSchema from "../../db/schema/index.js";
import * as pgSchema from "../../db/schema-pg/index.js";
import type { Dialect } from "../dialect/dialect.js";
import { moveLastUsed } from "./postgres-last-used.js";
import { createLogWriter } from "./sqlite-log-writer.js";

/** Log rows per multi-row INSERT on PostgreSQL: at most 13 parameters each, far below 65,535. */
const PG_CHUNK = 1000;

const TABLES = {
  apiTokens: { log: "apiTokenAudit", table: "api_tokens" },
  playbackKeys: { log: "playbackAccessLog", table: "playback_keys" },
} as const;

/**
 * The usage batch of a credential table: its log records and `last_used_at` in one
 * transaction, with no version bump. A hot path (every playback-key request is a record),
 * so written per database rather than through the shared builders: on SQLite a statement
 * prepared once and run synchronously in better-sqlite3's own transaction, under the
 * connection's lock; on PostgreSQL multi-row inserts
 * and one locking update of every credential used (`postgres-last-used.ts`).
 */
export function usageAppender<Entry extends object>(
  d: Dialect,
  kind: keyof typeof TABLES,
): (entries: readonly Entry[], lastUsed: ReadonlyMap<string, number>) => Promise<void> {
  const { log, table } = TABLES[kind];
  if (d.kind === "postgres") {
    const logTable = pgSchema[log] as typeof pgSchema.playbackAccessLog;
    return (entries, lastUsed) =>
      d.pg.transaction(async (tx) => {
        for (let i = 0; i < entries.length; i += PG_CHUNK)
          await tx.insert(logTable).values(entries.slice(i, i + PG_CHUNK) as never);
        await moveLastUsed(tx, table, lastUsed);
      });
  }
  const db = d.sqlite;
  const credentials = sqliteSchema[kind] as typeof sqliteSchema.playbackKeys;
  const write = createLogWriter<Entry>(db, sqliteSchema[log]);
  const batch = db.$client.transaction(
    (entries: readonly Entry[], lastUsed: ReadonlyMap<string, number>) => {
      write(entries);
      for (const [id, at] of lastUsed)
        db.update(credentials)
          .set({ lastUsedAt: sql`max(coalesce(${credentials.lastUsedAt}, 0), ${at})` })
          .where(eq(credentials.id, id))
          .run();
    },
  );
  // Under the connection's lock: a channel commit may hold SQLite's write lock on its writer thread.
  return (entries, lastUsed) => d.exclusive(async () => batch(entries, lastUsed));
}
