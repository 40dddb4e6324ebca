import { and, eq, or } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { channels, stateMarkers } from "../../db/schema/index.js";
import { channelFromRow, rowFromChannel } from "../../services/channels/stored-channel.js";
import { CHANNEL_WRITE_BATCH, type ChannelRepository, staleChannels } from "./repository.js";
import { createChannelUpsert } from "./sqlite-upsert.js";

/**
 * The channel catalog in the embedded SQLite file. better-sqlite3 is synchronous: each
 * method runs its whole transaction before it returns, so no other write of this process
 * interleaves with it.
 */
export function sqliteChannelRepository(db: StateDb): ChannelRepository {
  // Multi-row upserts: an M3U import of 40,000 channels is 200 statements, not 40,000.
  const upsert = createChannelUpsert(db);
  return {
    async loadAll() {
      return db.select().from(channels).all().map(channelFromRow);
    },
    async commit({ put = [], remove = [] }) {
      db.transaction((tx) => {
        upsert(put);
        for (let i = 0; i < remove.length; i += CHANNEL_WRITE_BATCH) {
          const batch = remove.slice(i, i + CHANNEL_WRITE_BATCH);
          const seen = batch.map((r) =>
            and(eq(channels.id, r.id), eq(channels.revision, r.revision)),
          );
          const { changes } = tx
            .delete(channels)
            .where(seen.length === 1 ? seen[0] : or(...seen))
            .run();
          if (changes !== batch.length) throw staleChannels();
        }
      });
    },
    async seedOnce(marker, seed) {
      return db.transaction((tx) => {
        if (tx.select().from(stateMarkers).where(eq(stateMarkers.name, marker)).get() !== undefined)
          return 0;
        const empty = tx.select({ id: channels.id }).from(channels).limit(1).get() === undefined;
        let imported = 0;
        if (empty) {
          for (const c of seed) {
            tx.insert(channels).values(rowFromChannel(c)).run();
            imported += 1;
          }
        }
        tx.insert(stateMarkers).values({ name: marker, setAt: Date.now() }).run();
        return imported;
      });
    },
  };
}
