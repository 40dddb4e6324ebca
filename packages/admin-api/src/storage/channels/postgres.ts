import { and, eq, or } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";
import { channels, stateMarkers } from "../../db/schema-pg/index.js";
import {
  type ChannelRow,
  channelFromRow,
  rowFromChannel,
} from "../../services/channels/stored-channel.js";
import { bumpVersion } from "../postgres/versions.js";
import { upsertChannels } from "./postgres-upsert.js";
import { CHANNEL_WRITE_BATCH, type ChannelRepository, staleChannels } from "./repository.js";

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
