import { isoSeconds } from "@svc/core/auth";
import { eq, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { playbackKeys } from "../../db/schema/index.js";
import { DigestIndex } from "../digest-index.js";

export type PlaybackKeyRecord = typeof playbackKeys.$inferSelect;

const iso = (ms: number | null) => (ms === null ? null : isoSeconds(new Date(ms)));

/** The playback key resource of the spec; never the plaintext. */
export function renderPlaybackKey(k: PlaybackKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    token_prefix: k.tokenPrefix,
    scope: renderScope(k),
    enabled: k.enabled,
    note: k.note,
    created_at: isoSeconds(new Date(k.createdAt)),
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
    expires_at: iso(k.expiresAt),
    revision: k.revision,
  };
}

/** `{all: true, channel_ids: []}` or `{all: false, channel_ids: [...]}`. */
export function renderScope(k: PlaybackKeyRecord) {
  return { all: k.channelIds.length === 0, channel_ids: k.channelIds };
}

/** Playback keys mirrored in memory (by id and by digest) over the state database. */
export interface PlaybackKeyStore {
  get(id: string): PlaybackKeyRecord | undefined;
  byDigest(digest: string): PlaybackKeyRecord | undefined;
  list(): readonly PlaybackKeyRecord[];
  save(record: PlaybackKeyRecord): void;
  remove(id: string): void;
  /** Commits `last_used_at` for a batch (inside the caller's transaction) and mirrors it. */
  markUsed(tx: Pick<StateDb, "update">, used: ReadonlyMap<string, number>): void;
}

export function createPlaybackKeyStore(db: StateDb): PlaybackKeyStore {
  const index = new DigestIndex<PlaybackKeyRecord>(db.select().from(playbackKeys).all());
  return {
    get: (id) => index.get(id),
    byDigest: (digest) => index.byDigest(digest),
    list: () => index.list(),
    save(record) {
      db.insert(playbackKeys)
        .values(record)
        .onConflictDoUpdate({ target: playbackKeys.id, set: record })
        .run();
      index.put(record);
    },
    remove(id) {
      db.delete(playbackKeys).where(eq(playbackKeys.id, id)).run();
      index.delete(id);
    },
    markUsed(tx, used) {
      for (const [id, at] of used) {
        tx.update(playbackKeys)
          .set({ lastUsedAt: sql`max(coalesce(${playbackKeys.lastUsedAt}, 0), ${at})` })
          .where(eq(playbackKeys.id, id))
          .run();
      }
      for (const [id, at] of used) index.noteUsed(id, at);
    },
  };
}
