import { getTableColumns, getTableName } from "drizzle-orm";
import { channels } from "../../db/schema/index.js";
import type { SqliteDialect } from "../dialect/dialect.js";
import { channelWriteThreadOf } from "./channel-write-thread.js";
import { CHANNEL_WRITE_BATCH, type ChannelChange, staleChannels } from "./repository.js";
import { rowFromChannel, type StoredChannel } from "./stored-channel.js";

const COLUMNS = Object.entries(getTableColumns(channels));
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const TABLE = quote(getTableName(channels));
const ID = quote(channels.id.name);
const REVISION = quote(channels.revision.name);
const NAMES = COLUMNS.map(([, c]) => quote(c.name));

/** SQL of each batch size, written once (a 40,000-entry apply is 200 statements of 200 rows). */
const upsertSql = new Map<number, string>();
const removeSql = new Map<number, string>();

/**
 * `INSERT … ON CONFLICT(id) DO UPDATE` with every column, for `rows` rows: a stored row is
 * replaced only from the revision before the written one (the repository's compare-and-set).
 */
function upsertStatement(rows: number): string {
  let sql = upsertSql.get(rows);
  if (sql === undefined) {
    const tuple = `(${COLUMNS.map(() => "?").join(",")})`;
    sql = `INSERT INTO ${TABLE} (${NAMES.join(",")}) VALUES ${Array(rows)
      .fill(tuple)
      .join(",")} ON CONFLICT(${ID}) DO UPDATE SET ${NAMES.filter((n) => n !== ID)
      .map((n) => `${n} = excluded.${n}`)
      .join(",")} WHERE ${TABLE}.${REVISION} = excluded.${REVISION} - 1`;
    upsertSql.set(rows, sql);
  }
  return sql;
}

/** `DELETE` of `rows` channels, each only while it still has the revision the writer saw. */
function removeStatement(rows: number): string {
  let sql = removeSql.get(rows);
  if (sql === undefined) {
    sql = `DELETE FROM ${TABLE} WHERE ${Array(rows)
      .fill(`(${ID} = ? AND ${REVISION} = ?)`)
      .join(" OR ")}`;
    removeSql.set(rows, sql);
  }
  return sql;
}

/**
 * A batch's parameters: each column through its own drizzle encoder (`mapToDriverValue`: JSON
 * columns, booleans), so the rows are the ones drizzle would write. drizzle's query builder
 * rebuilt and re-prepared the 5,200-parameter SQL for every batch, which was 80% of a
 * 40,000-entry M3U apply (bench/m3u-catalog.mjs, `--cpu-prof`): the SQL is written once here
 * and prepared once by the writer thread.
 */
function upsertParams(batch: readonly StoredChannel[]): unknown[] {
  const params: unknown[] = [];
  for (const channel of batch) {
    const row = rowFromChannel(channel) as Record<string, unknown>;
    for (const [key, column] of COLUMNS) {
      const value = row[key];
      params.push(value === null || value === undefined ? null : column.mapToDriverValue(value));
    }
  }
  return params;
}

/**
 * The channel commit on the embedded SQLite file: one transaction (`BEGIN IMMEDIATE` …
 * `COMMIT`) that a writer thread runs on its own connection to the file
 * (`channel-write-thread.ts`), in batches of rows this thread encodes and hands over one at a
 * time. A 32 MiB M3U apply (~165,000 channels) then never holds the event loop (issue 30
 * item 1): encoding a batch is about 2.5 ms, and the database's work, the `COMMIT` included
 * (0.2-0.5 s for such an apply: the WAL's fsync and the checkpoint after it, one synchronous
 * call), runs on the writer thread. It stays all or nothing (spec "Import and export"): a
 * batch that changed fewer rows than it holds (a stale revision) or any error rolls the
 * whole transaction back.
 *
 * It holds the connection's lock for its whole length, so no other write of this process
 * meets SQLite's write lock held by the thread (better-sqlite3 would wait for it with the
 * event loop stopped): the shared repositories' transactions, the usage logs and the guide's
 * programme writes all take that lock. Readers on this thread's connection go on meanwhile
 * (WAL) and see the catalog as it was before the commit until it ends.
 */
export function sqliteChannelCommit(d: SqliteDialect): (change: ChannelChange) => Promise<void> {
  const client = d.sqlite.$client;
  return ({ put = [], remove = [] }) =>
    d.exclusive(async () => {
      const thread = channelWriteThreadOf(client);
      await thread.step({ op: "begin" });
      try {
        for (let i = 0; i < put.length; i += CHANNEL_WRITE_BATCH) {
          const batch = put.slice(i, i + CHANNEL_WRITE_BATCH);
          const sql = upsertStatement(batch.length);
          const changed = await thread.step({ op: "run", sql, params: upsertParams(batch) });
          if (changed !== batch.length) throw staleChannels();
        }
        for (let i = 0; i < remove.length; i += CHANNEL_WRITE_BATCH) {
          const batch = remove.slice(i, i + CHANNEL_WRITE_BATCH);
          const params = batch.flatMap((r) => [r.id, r.revision]);
          const changed = await thread.step({
            op: "run",
            sql: removeStatement(batch.length),
            params,
          });
          if (changed !== batch.length) throw staleChannels();
        }
        await thread.step({ op: "commit" });
      } catch (err) {
        // A dead thread's connection is closed, which rolled its transaction back.
        if (!thread.ended) await thread.step({ op: "rollback" }).catch(() => undefined);
        throw err;
      }
    });
}
