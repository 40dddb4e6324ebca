import { and, desc, eq, isNotNull, lt, sql } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";
import { apiTokenAudit, apiTokens } from "../../db/schema-pg/index.js";
import { moveLastUsed } from "../postgres/last-used.js";
import { bumpVersion } from "../postgres/versions.js";
import type { ApiTokensRepository } from "./repository.js";

/** Audit rows per multi-row INSERT: 12 parameters each, far below PostgreSQL's 65,535. */
const AUDIT_CHUNK = 1000;

/**
 * API tokens and their audit log in PostgreSQL. Token writes bump the
 * `api_tokens` version in their transaction (every instance reloads its
 * mirror, so a revoked or rotated token is refused everywhere within 1 s);
 * audit batches and `last_used_at` do not.
 */
export function postgresApiTokensRepository(db: PgStateDb): ApiTokensRepository {
  return {
    async list() {
      return db.select().from(apiTokens);
    },
    async insert(row) {
      await db.transaction(async (tx) => {
        await tx.insert(apiTokens).values(row);
        await bumpVersion(tx, "api_tokens");
      });
    },
    async update(row, expectedRevision) {
      const { id, lastUsedAt: _kept, ...fields } = row;
      return db.transaction(async (tx) => {
        const changed = await tx
          .update(apiTokens)
          .set(fields)
          .where(and(eq(apiTokens.id, id), eq(apiTokens.revision, expectedRevision)))
          .returning({ id: apiTokens.id });
        if (changed.length === 0) return false;
        await bumpVersion(tx, "api_tokens");
        return true;
      });
    },
    async remove(id, expectedRevision) {
      return db.transaction(async (tx) => {
        const gone = await tx
          .delete(apiTokens)
          .where(and(eq(apiTokens.id, id), eq(apiTokens.revision, expectedRevision)))
          .returning({ id: apiTokens.id });
        if (gone.length === 0) return false;
        await bumpVersion(tx, "api_tokens");
        return true;
      });
    },
    async lastUsed() {
      const rows = await db
        .select({ id: apiTokens.id, at: apiTokens.lastUsedAt })
        .from(apiTokens)
        .where(isNotNull(apiTokens.lastUsedAt));
      return new Map(rows.map((r) => [r.id, r.at ?? 0]));
    },
    async appendAudit(entries, lastUsed) {
      await db.transaction(async (tx) => {
        for (let i = 0; i < entries.length; i += AUDIT_CHUNK) {
          await tx.insert(apiTokenAudit).values(entries.slice(i, i + AUDIT_CHUNK));
        }
        await moveLastUsed(tx, "api_tokens", lastUsed);
      });
    },
    async newestAudit(known, limit) {
      return (
        db
          .select()
          .from(apiTokenAudit)
          // Literal '' (not a bound parameter), so the planner can match the partial index.
          .where(known ? sql`${apiTokenAudit.tokenId} <> ''` : sql`${apiTokenAudit.tokenId} = ''`)
          .orderBy(desc(apiTokenAudit.id))
          .limit(limit)
      );
    },
    async purgeAudit(cutoff) {
      const result = await db.delete(apiTokenAudit).where(lt(apiTokenAudit.createdAt, cutoff));
      return result.rowCount ?? 0;
    },
  };
}
