import type { Dialect } from "../dialect/dialect.js";
import { postgresChannelCommit } from "./postgres-commit.js";
import { CHANNEL_WRITE_BATCH, type ChannelRepository } from "./repository.js";
import { sqliteChannelCommit } from "./sqlite-commit.js";
import { channelFromRow, rowFromChannel } from "./stored-channel.js";

/**
 * The channel catalog. Every write transaction bumps the `channels` version on PostgreSQL,
 * so the other instances reload their mirror. A read is one statement. On SQLite it runs
 * under the connection's own lock, never inside another transaction of this connection that
 * is between its awaits (it would see that one's uncommitted rows), and takes no write lock
 * (workers reload without waiting for each other's writes); a channel commit in progress is on its
 * writer thread, so the read sees the catalog as it was until that commit ends.
 */
export function channelRepository(d: Dialect): ChannelRepository {
  const { channels, stateMarkers } = d.tables;
  const readAll = async () => (await d.db.select().from(channels)).map(channelFromRow);
  return {
    loadAll: d.kind === "sqlite" ? () => d.readExclusive(readAll) : readAll,
    commit:
      d.kind === "postgres"
        ? postgresChannelCommit(d.pg)
        : d.versioned
          ? versionedAfter(d, sqliteChannelCommit(d))
          : sqliteChannelCommit(d),
    seedOnce: (marker, seed) =>
      d.write(
        "channels",
        async (tx) => {
          // The marker row decides who imports: a concurrent start's insert waits on this
          // one's uncommitted row and then does nothing.
          const won = await tx
            .insert(stateMarkers)
            .values({ name: marker, setAt: Date.now() })
            .onConflictDoNothing()
            .returning({ name: stateMarkers.name });
          if (won.length === 0) return 0;
          const any = await tx.select({ id: channels.id }).from(channels).limit(1);
          if (any.length > 0) return 0;
          for (let i = 0; i < seed.length; i += CHANNEL_WRITE_BATCH)
            await tx
              .insert(channels)
              .values(seed.slice(i, i + CHANNEL_WRITE_BATCH).map(rowFromChannel));
          return seed.length;
        },
        (imported) => imported > 0,
      ),
  };
}

/**
 * SQLite shared by workers: the `channels` version is bumped once the commit is done, in a
 * transaction of its own, before the write is acknowledged (so read-after-write and the
 * push hold; a worker killed between the two leaves the others' mirrors behind until the
 * next channel write).
 */
function versionedAfter(
  d: Dialect,
  commit: ChannelRepository["commit"],
): ChannelRepository["commit"] {
  return async (change) => {
    const result = await commit(change);
    await d.write("channels", async () => undefined);
    return result;
  };
}
