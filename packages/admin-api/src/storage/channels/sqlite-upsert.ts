import type { Statement } from "better-sqlite3";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { channels } from "../../db/schema/index.js";
import { rowFromChannel, type StoredChannel } from "../../services/channels/stored-channel.js";
import { CHANNEL_WRITE_BATCH, staleChannels } from "./repository.js";

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
export function createChannelUpsert(
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
