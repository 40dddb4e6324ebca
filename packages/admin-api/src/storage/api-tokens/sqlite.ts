import { and, desc, eq, isNotNull, lt, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { apiTokenAudit, apiTokens } from "../../db/schema/index.js";
import type { ApiTokensRepository } from "./repository.js";

/** API tokens and their audit log in the embedded SQLite database. */
export function sqliteApiTokensRepository(db: StateDb): ApiTokensRepository {
  const insertAudit = db
    .insert(apiTokenAudit)
    .values({
      tokenId: sql.placeholder("tokenId"),
      tokenPrefix: sql.placeholder("tokenPrefix"),
      method: sql.placeholder("method"),
      path: sql.placeholder("path"),
      requiredScope: sql.placeholder("requiredScope"),
      decision: sql.placeholder("decision"),
      status: sql.placeholder("status"),
      remote: sql.placeholder("remote"),
      userAgent: sql.placeholder("userAgent"),
      requestId: sql.placeholder("requestId"),
      reason: sql.placeholder("reason"),
      createdAt: sql.placeholder("createdAt"),
    })
    .prepare();
  return {
    async list() {
      return db.select().from(apiTokens).all();
    },
    async insert(row) {
      db.insert(apiTokens).values(row).run();
    },
    async update(row, expectedRevision) {
      const { id, lastUsedAt: _kept, ...fields } = row;
      return (
        db
          .update(apiTokens)
          .set(fields)
          .where(and(eq(apiTokens.id, id), eq(apiTokens.revision, expectedRevision)))
          .run().changes === 1
      );
    },
    async remove(id, expectedRevision) {
      return (
        db
          .delete(apiTokens)
          .where(and(eq(apiTokens.id, id), eq(apiTokens.revision, expectedRevision)))
          .run().changes === 1
      );
    },
    async lastUsed() {
      const rows = db
        .select({ id: apiTokens.id, at: apiTokens.lastUsedAt })
        .from(apiTokens)
        .where(isNotNull(apiTokens.lastUsedAt))
        .all();
      return new Map(rows.map((r) => [r.id, r.at ?? 0]));
    },
    async appendAudit(entries, lastUsed) {
      db.transaction((tx) => {
        for (const e of entries) insertAudit.run({ ...e });
        for (const [id, at] of lastUsed) {
          tx.update(apiTokens)
            .set({ lastUsedAt: sql`max(coalesce(${apiTokens.lastUsedAt}, 0), ${at})` })
            .where(sql`${apiTokens.id} = ${id}`)
            .run();
        }
      });
    },
    async newestAudit(known, limit) {
      return (
        db
          .select()
          .from(apiTokenAudit)
          // Literal '' (not a bound parameter), so SQLite picks the matching partial index.
          .where(known ? sql`${apiTokenAudit.tokenId} != ''` : sql`${apiTokenAudit.tokenId} = ''`)
          .orderBy(desc(apiTokenAudit.id))
          .limit(limit)
          .all()
      );
    },
    async purgeAudit(cutoff) {
      return db.delete(apiTokenAudit).where(lt(apiTokenAudit.createdAt, cutoff)).run().changes;
    },
  };
}
