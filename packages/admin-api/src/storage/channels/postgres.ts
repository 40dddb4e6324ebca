import { and, eq, getTableColumns, or, sql } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";
import { channels, stateMarkers } from "../../db/schema-pg/index.js";
import {
  type ChannelRow,
  channelFromRow,
  rowFromChannel,
} from "../../services/channels/stored-channel.js";
import { bumpVersion } from "../postgres/versions.js";
import { CHANNEL_WRITE_BATCH, type ChannelRepository, staleChannels } from "./repository.js";

/** `SET col = excluded.col` for every column but the key: a put replaces the whole row. */
const REPLACE_ALL = Object.fromEntries(
  Object.entries(getTableColumns(channels))
    .filter(([key]) => key !== "id")
    .map(([key, column]) => [key, sql.raw(`excluded."${column.name}"`)]),
);

/**
 * The channel catalog in PostgreSQL (cluster mode). Every write transaction bumps the
 * `channels` version, so the other instances reload their mirror.
 */
export function postgresChannelRepository(db: PgStateDb): ChannelRepository {
  return {
    async loadAll() {
      const rows: ChannelRow[] = await db.select().from(channels);
      return rows.map(channelFromRow);
    },
    async commit({ put = [], remove = [] }) {
      await db.transaction(async (tx) => {
        for (let i = 0; i < put.length; i += CHANNEL_WRITE_BATCH) {
          const batch = put.slice(i, i + CHANNEL_WRITE_BATCH);
          const written = await tx
            .insert(channels)
            .values(batch.map(rowFromChannel))
            .onConflictDoUpdate({
              target: channels.id,
              set: REPLACE_ALL,
              // Compare-and-set: a stored row is replaced only from the revision before this one.
              setWhere: sql`${channels.revision} = excluded."revision" - 1`,
            })
            // xmax is 0 on a row this statement inserted: a revision above 1 inserted means
            // the channel was deleted since it was read.
            .returning({ revision: channels.revision, inserted: sql<boolean>`(xmax = 0)` });
          if (
            written.length !== batch.length ||
            written.some((w) => w.inserted && w.revision !== 1)
          )
            throw staleChannels();
        }
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
    },
    async seedOnce(marker, seed) {
      return db.transaction(async (tx) => {
        // The marker row decides who imports: a concurrent start's insert waits on this
        // one's uncommitted row and then does nothing.
        const won = await tx
          .insert(stateMarkers)
          .values({ name: marker, setAt: Date.now() })
          .onConflictDoNothing()
          .returning({ name: stateMarkers.name });
        if (won.length === 0) return 0;
        const any = await tx.select({ id: channels.id }).from(channels).limit(1);
        if (any.length > 0 || seed.length === 0) return 0;
        for (let i = 0; i < seed.length; i += CHANNEL_WRITE_BATCH)
          await tx
            .insert(channels)
            .values(seed.slice(i, i + CHANNEL_WRITE_BATCH).map(rowFromChannel));
        await bumpVersion(tx, "channels");
        return seed.length;
      });
    },
  };
}
