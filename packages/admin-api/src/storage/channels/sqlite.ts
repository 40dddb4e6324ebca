import { runInSlices } from "@svc/core/time-slices";
import { and, eq, or } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { channels, stateMarkers } from "../../db/schema/index.js";
import {
  channelFromRow,
  rowFromChannel,
  type StoredChannel,
} from "../../services/channels/stored-channel.js";
import { createSerialLock, type SerialLock } from "../../services/serial-lock.js";
import {
  CHANNEL_WRITE_BATCH,
  type ChannelRemoval,
  type ChannelRepository,
  staleChannels,
} from "./repository.js";
import { createChannelUpsert } from "./sqlite-upsert.js";

/** The longest a channel write holds the event loop before it gives a turn (issue 30 item 1). */
const WRITE_SLICE_MS = 4;

const locks = new WeakMap<object, SerialLock>();
function connectionLock(client: object): SerialLock {
  let lock = locks.get(client);
  if (lock === undefined) {
    lock = createSerialLock();
    locks.set(client, lock);
  }
  return lock;
}

/**
 * The channel catalog in the embedded SQLite file.
 *
 * A commit is one transaction that spans event-loop turns: `BEGIN IMMEDIATE`, batches of rows
 * with a turn between them (~4 ms of work per turn), `COMMIT`; `ROLLBACK` on any error. A 32 MiB
 * M3U apply (~165,000 channels, seconds of CPU) then never holds the loop (issue 30 item 1) and
 * stays all or nothing (spec "Import and export"). Callers go through the channel store, whose
 * serial lock lets no other channel write or reload run until the commit ends.
 *
 * Other writers share this better-sqlite3 connection (audit and access log, guide, login
 * windows, leases, viewer seats…) and may run between the turns. Their `db.transaction()`
 * nests as a SAVEPOINT and a plain statement simply runs inside the open transaction: either
 * way their rows commit with the channels. They would be lost only if the channel transaction
 * rolled back, which cannot come from a conflict (the channel store refuses a stale revision
 * before it writes, and no other channel write runs meanwhile) — only from an I/O error, which
 * would fail their own writes as well. Blocking those writers instead would need a queue in
 * front of every one of them. Reads on the connection see the uncommitted channel rows; none
 * reads the channel table but this repository. The in-memory mirror switches after `COMMIT`.
 */
export function sqliteChannelRepository(db: StateDb): ChannelRepository {
  // Multi-row upserts: an M3U import of 40,000 channels is 200 statements, not 40,000.
  const upsert = createChannelUpsert(db);
  const client = db.$client;
  // The channel store already serialises its calls; this keeps a second repository or a direct
  // caller on the same connection from opening a BEGIN inside a commit that is between turns.
  const exclusive = connectionLock(client);
  const begin = client.prepare("BEGIN IMMEDIATE");
  const commit = client.prepare("COMMIT");
  const rollback = client.prepare("ROLLBACK");
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
  return {
    loadAll: () => exclusive(async () => db.select().from(channels).all().map(channelFromRow)),
    commit: ({ put = [], remove = [] }) =>
      exclusive(async () => {
        begin.run();
        try {
          await runInSlices(steps(put, remove), WRITE_SLICE_MS);
          commit.run();
        } catch (err) {
          if (client.inTransaction) rollback.run();
          throw err;
        }
      }),
    seedOnce: (marker, seed) =>
      exclusive(async () =>
        db.transaction((tx) => {
          if (
            tx.select().from(stateMarkers).where(eq(stateMarkers.name, marker)).get() !== undefined
          )
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
        }),
      ),
  };
}
