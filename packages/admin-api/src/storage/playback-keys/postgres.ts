import { and, desc, eq, isNotNull, lt } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";
import { playbackAccessLog, playbackKeys } from "../../db/schema-pg/index.js";
import { moveLastUsed } from "../postgres/last-used.js";
import { bumpVersion } from "../postgres/versions.js";
import type { PlaybackKeysRepository } from "./repository.js";

/** Access rows per multi-row INSERT: 7 parameters each, far below PostgreSQL's 65,535. */
const ACCESS_CHUNK = 1000;

/**
 * Playback keys and their access log in PostgreSQL. Key writes bump the
 * `playback_keys` version in their transaction (every instance reloads its
 * mirror, so a revoked key is refused everywhere within 1 s); access batches
 * and `last_used_at` do not.
 */
export function postgresPlaybackKeysRepository(db: PgStateDb): PlaybackKeysRepository {
  return {
    async list() {
      return db.select().from(playbackKeys);
    },
    async insert(row) {
      await db.transaction(async (tx) => {
        await tx.insert(playbackKeys).values(row);
        await bumpVersion(tx, "playback_keys");
      });
    },
    async update(row, expectedRevision) {
      const { id, lastUsedAt: _kept, ...fields } = row;
      return db.transaction(async (tx) => {
        const changed = await tx
          .update(playbackKeys)
          .set(fields)
          .where(and(eq(playbackKeys.id, id), eq(playbackKeys.revision, expectedRevision)))
          .returning({ id: playbackKeys.id });
        if (changed.length === 0) return false;
        await bumpVersion(tx, "playback_keys");
        return true;
      });
    },
    async remove(id, expectedRevision) {
      return db.transaction(async (tx) => {
        const gone = await tx
          .delete(playbackKeys)
          .where(and(eq(playbackKeys.id, id), eq(playbackKeys.revision, expectedRevision)))
          .returning({ id: playbackKeys.id });
        if (gone.length === 0) return false;
        await bumpVersion(tx, "playback_keys");
        return true;
      });
    },
    async lastUsed() {
      const rows = await db
        .select({ id: playbackKeys.id, at: playbackKeys.lastUsedAt })
        .from(playbackKeys)
        .where(isNotNull(playbackKeys.lastUsedAt));
      return new Map(rows.map((r) => [r.id, r.at ?? 0]));
    },
    async appendAccess(entries, lastUsed) {
      await db.transaction(async (tx) => {
        for (let i = 0; i < entries.length; i += ACCESS_CHUNK) {
          await tx.insert(playbackAccessLog).values(entries.slice(i, i + ACCESS_CHUNK));
        }
        await moveLastUsed(tx, "playback_keys", lastUsed);
      });
    },
    async accessLog({ limit, tokenId }) {
      return db
        .select()
        .from(playbackAccessLog)
        .where(tokenId === undefined ? undefined : eq(playbackAccessLog.tokenId, tokenId))
        .orderBy(desc(playbackAccessLog.id))
        .limit(limit);
    },
    async clearAccessLog() {
      return (await db.delete(playbackAccessLog)).rowCount ?? 0;
    },
    async purgeAccessLog(cutoff) {
      const result = await db
        .delete(playbackAccessLog)
        .where(lt(playbackAccessLog.createdAt, cutoff));
      return result.rowCount ?? 0;
    },
  };
}
