import { eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { apiTokens } from "../../db/schema/index.js";
import type { ApiTokenRecord } from "./token-record.js";

/**
 * API tokens held in memory (loaded once, updated after each committed write)
 * so authenticating a request costs a map lookup by digest, not a query.
 */
export interface ApiTokenStore {
  readonly db: StateDb;
  get(id: string): ApiTokenRecord | undefined;
  byDigest(digest: string): ApiTokenRecord | undefined;
  list(): readonly ApiTokenRecord[];
  /** Commits the row (insert or replace) and then updates memory. */
  save(record: ApiTokenRecord): void;
  remove(id: string): void;
  /** Applies `last_used_at` values already committed by the usage recorder. */
  noteUsed(id: string, at: number): void;
}

export function createApiTokenStore(db: StateDb): ApiTokenStore {
  const byId = new Map<string, ApiTokenRecord>();
  const idByDigest = new Map<string, string>();
  for (const row of db.select().from(apiTokens).all()) {
    byId.set(row.id, row);
    idByDigest.set(row.digest, row.id);
  }
  const index = (record: ApiTokenRecord) => {
    const old = byId.get(record.id);
    if (old !== undefined) idByDigest.delete(old.digest);
    byId.set(record.id, record);
    idByDigest.set(record.digest, record.id);
  };
  return {
    db,
    get: (id) => byId.get(id),
    byDigest(digest) {
      const id = idByDigest.get(digest);
      return id === undefined ? undefined : byId.get(id);
    },
    list: () =>
      [...byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)),
    save(record) {
      db.insert(apiTokens)
        .values(record)
        .onConflictDoUpdate({ target: apiTokens.id, set: record })
        .run();
      index(record);
    },
    remove(id) {
      db.delete(apiTokens).where(eq(apiTokens.id, id)).run();
      const old = byId.get(id);
      if (old !== undefined) idByDigest.delete(old.digest);
      byId.delete(id);
    },
    noteUsed(id, at) {
      const old = byId.get(id);
      if (old !== undefined && (old.lastUsedAt ?? 0) < at) byId.set(id, { ...old, lastUsedAt: at });
    },
  };
}
