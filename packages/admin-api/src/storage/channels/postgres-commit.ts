import { and, eq, getTableColumns, getTableName, or, sql } from "drizzle-orm";
import type { PgStateDb, PgTx } from "../../db/pg-client.js";
import { channels } from "../../db/schema-pg/index.js";
import { bumpVersion } from "../postgres/versions.js";
import { CHANNEL_WRITE_BATCH, type ChannelChange, staleChannels } from "./repository.js";
import { rowFromChannel, type StoredChannel } from "./stored-channel.js";

const COLUMNS = Object.entries(getTableColumns(channels));
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const NAMES = COLUMNS.map(([, c]) => quote(c.name));
const TABLE = quote(getTableName(channels));

/**
 * The statement text, the same for every batch: the rows arrive as one `jsonb` array that
 * `jsonb_populate_recordset` turns into rows of the table's own type. A multi-row VALUES
 * list through drizzle's builder (5,200 parameters a batch) took 8x longer for 10,000
 * channels. Compare-and-set: a stored row is replaced only from the revision before the
 * written one; xmax is 0 on a row the statement inserted.
 */
const UPSERT = sql.raw(
  `INSERT INTO ${TABLE} (${NAMES.join(",")}) SELECT ${NAMES.join(",")} FROM jsonb_populate_recordset(NULL::${TABLE}, `,
);
const CONFLICT = sql.raw(
  `::jsonb) ON CONFLICT (${quote(channels.id.name)}) DO UPDATE SET ${NAMES.filter(
    (n) => n !== quote(channels.id.name),
  )
    .map((n) => `${n} = excluded.${n}`)
    .join(",")} WHERE ${TABLE}.${quote(channels.revision.name)} = excluded.${quote(
    channels.revision.name,
  )} - 1 RETURNING ${quote(channels.revision.name)} AS revision, (xmax = 0) AS inserted`,
);

/** A channel as a JSON object keyed by column name: JSON columns nested, flags as booleans. */
function jsonRow(channel: StoredChannel): Record<string, unknown> {
  const row = rowFromChannel(channel) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, column] of COLUMNS) out[column.name] = row[key] ?? null;
  return out;
}

/**
 * Writes whole channel rows inside the caller's transaction, in batches. A batch that
 * changed fewer rows than it holds (a stored revision moved), or inserted a channel at a
 * revision above 1 (it was deleted since it was read), throws the conflict, which rolls
 * the transaction back.
 */
async function upsertChannels(tx: PgTx, put: readonly StoredChannel[]): Promise<void> {
  for (let i = 0; i < put.length; i += CHANNEL_WRITE_BATCH) {
    const batch = put.slice(i, i + CHANNEL_WRITE_BATCH);
    const json = JSON.stringify(batch.map(jsonRow));
    const { rows } = await tx.execute<{ revision: number; inserted: boolean }>(
      sql`${UPSERT}${json}${CONFLICT}`,
    );
    if (rows.length !== batch.length || rows.some((w) => w.inserted && w.revision !== 1))
      throw staleChannels();
  }
}

/**
 * The channel commit on PostgreSQL: one transaction of the upserts above (a hot path of this
 * database: one `jsonb` parameter a batch), the compare-and-set deletes, and the `channels`
 * version bump, so the other instances reload their mirror.
 */
export function postgresChannelCommit(db: PgStateDb): (change: ChannelChange) => Promise<void> {
  return ({ put = [], remove = [] }) =>
    db.transaction(async (tx) => {
      await upsertChannels(tx, put);
      for (let i = 0; i < remove.length; i += CHANNEL_WRITE_BATCH) {
        const batch = remove.slice(i, i + CHANNEL_WRITE_BATCH);
        const seen = batch.map((r) =>
          and(eq(channels.id, r.id), eq(channels.revision, r.revision)),
        );
        const deleted = await tx
          .delete(channels)
          .where(seen.length === 1 ? seen[0] : or(...seen))
          .returning({ id: channels.id });
        if (deleted.length !== batch.length) throw staleChannels();
      }
      await bumpVersion(tx, "channels");
    });
}
