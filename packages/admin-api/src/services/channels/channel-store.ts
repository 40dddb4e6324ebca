import { type ChannelCatalog, compareChannels, type Upstream } from "@svc/core/catalog";
import { eq, inArray } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { channels } from "../../db/schema/index.js";
import { createChannelUpsert, UPSERT_BATCH } from "./channel-upsert.js";
import { channelFromRow, type StoredChannel } from "./stored-channel.js";

/**
 * The full build's catalog: channels in the state database, mirrored in memory
 * so playback reads never touch the disk. Every write commits first (one
 * transaction) and then swaps the in-memory list.
 */
export interface ChannelStore extends ChannelCatalog {
  get(id: string): StoredChannel | undefined;
  list(): readonly StoredChannel[];
  /** Commits the given inserts/replacements and deletions in one transaction. */
  commit(change: { put?: readonly StoredChannel[]; remove?: readonly string[] }): void;
}

export function createChannelStore(db: StateDb, upstreams: readonly Upstream[]): ChannelStore {
  const byId = new Map<string, StoredChannel>();
  for (const row of db.select().from(channels).all()) byId.set(row.id, channelFromRow(row));
  let sorted: StoredChannel[] = [];
  const resort = () => {
    sorted = [...byId.values()].sort(compareChannels);
  };
  resort();
  const upstreamById = new Map(upstreams.map((u) => [u.id, u]));
  const upsert = createChannelUpsert(db);
  return {
    get: (id) => byId.get(id),
    list: () => sorted,
    upstream: (id) => upstreamById.get(id),
    commit({ put = [], remove = [] }) {
      db.transaction((tx) => {
        // Multi-row upserts: an M3U import of 40,000 channels is 200 statements, not 40,000.
        upsert(put);
        for (let i = 0; i < remove.length; i += UPSERT_BATCH) {
          const ids = remove.slice(i, i + UPSERT_BATCH);
          if (ids.length === 1) tx.delete(channels).where(eq(channels.id, ids[0]!)).run();
          else tx.delete(channels).where(inArray(channels.id, ids)).run();
        }
      });
      for (const c of put) byId.set(c.id, c);
      for (const id of remove) byId.delete(id);
      resort();
    },
  };
}
