import { and, desc, eq, isNotNull, lt, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { playbackAccessLog, playbackKeys } from "../../db/schema/index.js";
import type { PlaybackKeysRepository } from "./repository.js";
import { createAccessLogWriter } from "./sqlite-access-log-writer.js";

/** Playback keys and their access log in the embedded SQLite database. */
export function sqlitePlaybackKeysRepository(db: StateDb): PlaybackKeysRepository {
  const insertAccess = createAccessLogWriter(db);
  return {
    async list() {
      return db.select().from(playbackKeys).all();
    },
    async insert(row) {
      db.insert(playbackKeys).values(row).run();
    },
    async update(row, expectedRevision) {
      const { id, lastUsedAt: _kept, ...fields } = row;
      return (
        db
          .update(playbackKeys)
          .set(fields)
          .where(and(eq(playbackKeys.id, id), eq(playbackKeys.revision, expectedRevision)))
          .run().changes === 1
      );
    },
    async remove(id, expectedRevision) {
      return (
        db
          .delete(playbackKeys)
          .where(and(eq(playbackKeys.id, id), eq(playbackKeys.revision, expectedRevision)))
          .run().changes === 1
      );
    },
    async lastUsed() {
      const rows = db
        .select({ id: playbackKeys.id, at: playbackKeys.lastUsedAt })
        .from(playbackKeys)
        .where(isNotNull(playbackKeys.lastUsedAt))
        .all();
      return new Map(rows.map((r) => [r.id, r.at ?? 0]));
    },
    async appendAccess(entries, lastUsed) {
      db.transaction((tx) => {
        insertAccess(entries);
        for (const [id, at] of lastUsed) {
          tx.update(playbackKeys)
            .set({ lastUsedAt: sql`max(coalesce(${playbackKeys.lastUsedAt}, 0), ${at})` })
            .where(eq(playbackKeys.id, id))
            .run();
        }
      });
    },
    async accessLog({ limit, tokenId }) {
      return db
        .select()
        .from(playbackAccessLog)
        .where(tokenId === undefined ? undefined : eq(playbackAccessLog.tokenId, tokenId))
        .orderBy(desc(playbackAccessLog.id))
        .limit(limit)
        .all();
    },
    async clearAccessLog() {
      return db.delete(playbackAccessLog).run().changes;
    },
    async purgeAccessLog(cutoff) {
      return db.delete(playbackAccessLog).where(lt(playbackAccessLog.createdAt, cutoff)).run()
        .changes;
    },
  };
}
