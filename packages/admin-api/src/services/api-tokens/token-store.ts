import { eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { apiTokens } from "../../db/schema/index.js";
import { DigestIndex } from "../digest-index.js";
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
  const index = new DigestIndex<ApiTokenRecord>(db.select().from(apiTokens).all());
  return {
    db,
    get: (id) => index.get(id),
    byDigest: (digest) => index.byDigest(digest),
    list: () => index.list(),
    save(record) {
      db.insert(apiTokens)
        .values(record)
        .onConflictDoUpdate({ target: apiTokens.id, set: record })
        .run();
      index.put(record);
    },
    remove(id) {
      db.delete(apiTokens).where(eq(apiTokens.id, id)).run();
      index.delete(id);
    },
    noteUsed: (id, at) => index.noteUsed(id, at),
  };
}
