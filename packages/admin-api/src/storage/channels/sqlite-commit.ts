import { runInSlices } from "@svc/core/time-slices";
import type { Statement } from "better-sqlite3";
import { and, eq, getTableColumns, getTableName, or } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { channels } from "../../db/schema/index.js";
import type { SqliteDialect } from "../dialect/dialect.js";
import {
  CHANNEL_WRITE_BATCH,
  type ChannelChange,
  type ChannelRemoval,
  staleChannels,
} from "./repository.js";
import { rowFromChannel, type StoredChannel } from "./stored-channel.js";

/** The longest a channel write holds the event loop before it gives a turn (issue 30 item 1). */
const WRITE_SLICE_MS = 4;

const COLUMNS = Object.entries(getTableColumns(channels));
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Writes whole channel rows (`INSERT … ON CONFLICT(id) DO UPDATE` with every column) through
 * better-sqlite3 statements prepared once per batch size. drizzle's query builder rebuilt and
 * re-prepared the 5,200-parameter SQL for every batch, which was 80% of a 40,000-entry M3U
 * apply (bench/m3u-catalog.mjs, `--cpu-prof`); the values still go through each column's own
 * drizzle encoder (`mapToDriverValue`: JSON columns, booleans), so the rows are the ones drizzle
 * would write. A stored row is replaced only from the revision before the written one (the
 * repository's compare-and-set); a batch that changed fewer rows than it holds throws the
 * conflict, which rolls back the caller's transaction it runs in. The writer is steps: it yields
 * after each batch (about 2.5 ms of CPU), so its caller can give the event loop a turn.
 */
function createChannelUpsert(
  db: StateDb,
): (put: readonly StoredChannel[], before?: () => void) => Generator<void, void> {
  const prepared = new Map<number, Statement>();
  const table = quote(getTableName(channels));
  const revision = quote(channels.revision.name);
  const statement = (rows: number): Statement => {
    let s = prepared.get(rows);
    if (s === undefined) {
      const tuple = `(${COLUMNS.map(() => "?").join(",")})`;
      const names = COLUMNS.map(([, c]) => quote(c.name));
      s = db.$client.prepare(
        `INSERT INTO ${table} (${names.join(",")}) VALUES ${Array(rows)
          .fill(tuple)
          .join(",")} ON CONFLICT(${quote(channels.id.name)}) DO UPDATE SET ${names
          .filter((n) => n !== quote(channels.id.name))
          .map((n) => `${n} = excluded.${n}`)
          .join(",")} WHERE ${table}.${revision} = excluded.${revision} - 1`,
      );
      prepared.set(rows, s);
    }
    return s;
  };
  return function* upsert(put, before = () => {}) {
    for (let i = 0; i < put.length; i += CHANNEL_WRITE_BATCH) {
      before();
      const batch = put.slice(i, i + CHANNEL_WRITE_BATCH);
      const params: unknown[] = [];
      for (const channel of batch) {
        const row = rowFromChannel(channel) as Record<string, unknown>;
        for (const [key, column] of COLUMNS) {
          const value = row[key];
          params.push(
            value === null || value === undefined ? null : column.mapToDriverValue(value),
          );
        }
      }
      if (statement(batch.length).run(params).changes !== batch.length) throw staleChannels();
      yield;
    }
  };
}

/**
 * The channel commit on the embedded SQLite file: one transaction of the dialect
 * (`BEGIN IMMEDIATE` … `COMMIT` under the connection's lock) that spans event-loop turns:
 * batches of rows with a turn between them (~4 ms of work per turn). A 32 MiB M3U apply
 * (~165,000 channels, seconds of CPU) then never holds the loop (issue 30 item 1) and stays
 * all or nothing (spec "Import and export"). A hot path of this database, so written for it
 * (statements prepared once, `run` in steps) rather than through the shared builders.
 *
 * Other writers share this better-sqlite3 connection (the usage logs' batches) and may run
 * between the turns: their own transaction nests as a SAVEPOINT and commits with the
 * channels. They would be lost only if the channel transaction rolled back, which cannot
 * come from a conflict (the channel store refuses a stale revision before it writes, and no
 * other channel write runs meanwhile), only from an I/O error, which would fail their own
 * writes as well. The shared repositories' writes and the channel reads wait for the lock.
 */
export function sqliteChannelCommit(d: SqliteDialect): (change: ChannelChange) => Promise<void> {
  const db = d.sqlite;
  const client = db.$client;
  // Multi-row upserts: an M3U import of 40,000 channels is 200 statements, not 40,000.
  const upsert = createChannelUpsert(db);
  // SQLite rolls a whole transaction back by itself on some errors (SQLITE_FULL, IOERR…) hit by
  // any statement of the connection; a batch written after that would commit on its own.
  const stillOpen = () => {
    if (!client.inTransaction)
      throw new Error("the channel transaction was rolled back by SQLite before it ended");
  };
  function* steps(put: readonly StoredChannel[], remove: readonly ChannelRemoval[]) {
    yield* upsert(put, stillOpen);
    for (let i = 0; i < remove.length; i += CHANNEL_WRITE_BATCH) {
      stillOpen();
      const batch = remove.slice(i, i + CHANNEL_WRITE_BATCH);
      const seen = batch.map((r) => and(eq(channels.id, r.id), eq(channels.revision, r.revision)));
      const { changes } = db
        .delete(channels)
        .where(seen.length === 1 ? seen[0] : or(...seen))
        .run();
      if (changes !== batch.length) throw staleChannels();
      yield;
    }
    stillOpen();
  }
  return ({ put = [], remove = [] }) =>
    d.transaction(() => runInSlices(steps(put, remove), WRITE_SLICE_MS));
}
