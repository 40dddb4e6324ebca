import { isoSeconds } from "@svc/core/auth";
import { eq, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { playbackKeys } from "../../db/schema/index.js";

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
  const byId = new Map<string, PlaybackKeyRecord>();
  const idByDigest = new Map<string, string>();
  for (const row of db.select().from(playbackKeys).all()) {
    byId.set(row.id, row);
    idByDigest.set(row.digest, row.id);
  }
  return {
    get: (id) => byId.get(id),
    byDigest(digest) {
      const id = idByDigest.get(digest);
      return id === undefined ? undefined : byId.get(id);
    },
    list: () =>
      [...byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)),
    save(record) {
      db.insert(playbackKeys)
        .values(record)
        .onConflictDoUpdate({ target: playbackKeys.id, set: record })
        .run();
      const old = byId.get(record.id);
      if (old !== undefined) idByDigest.delete(old.digest);
      byId.set(record.id, record);
      idByDigest.set(record.digest, record.id);
    },
    remove(id) {
      db.delete(playbackKeys).where(eq(playbackKeys.id, id)).run();
      const old = byId.get(id);
      if (old !== undefined) idByDigest.delete(old.digest);
      byId.delete(id);
    },
    markUsed(tx, used) {
      for (const [id, at] of used) {
        tx.update(playbackKeys)
          .set({ lastUsedAt: sql`max(coalesce(${playbackKeys.lastUsedAt}, 0), ${at})` })
          .where(eq(playbackKeys.id, id))
          .run();
      }
      for (const [id, at] of used) {
        const old = byId.get(id);
        if (old !== undefined && (old.lastUsedAt ?? 0) < at)
          byId.set(id, { ...old, lastUsedAt: at });
      }
    },
  };
}
