import { isoSeconds } from "@svc/core/auth";
import { desc, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { apiTokenAudit, apiTokens } from "../../db/schema/index.js";
import { createWriteBehindQueue } from "../queue/write-behind-queue.js";
import type { ApiTokenStore } from "./token-store.js";

export type AuditEntry = typeof apiTokenAudit.$inferInsert;

/** Spec "Limits": the token audit listing shows the 100 most recent records. */
export const AUDIT_LISTING_LIMIT = 100;

export interface TokenUsageRecorder {
  /** Queues an audit record; an allowed use also moves the token's `last_used_at`. */
  record(entry: AuditEntry): void;
  /** The 100 most recent records, after writing everything queued. */
  recent(): ReturnType<typeof renderAudit>[];
  flush(): void;
  close(): void;
}

function renderAudit(a: typeof apiTokenAudit.$inferSelect) {
  return {
    id: String(a.id),
    token_id: a.tokenId,
    token_prefix: a.tokenPrefix,
    method: a.method,
    path: a.path,
    required_scope: a.requiredScope,
    decision: a.decision,
    status: a.status,
    remote: a.remote,
    user_agent: a.userAgent,
    request_id: a.requestId,
    created_at: isoSeconds(new Date(a.createdAt)),
    ...(a.decision === "deny" ? { reason: a.reason } : {}),
  };
}

/**
 * Audit records and `last_used_at` go through one bounded write-behind queue:
 * a request never waits for a disk write, and each batch is one transaction.
 */
export function createTokenUsageRecorder(
  db: StateDb,
  store: ApiTokenStore,
  onError: (err: unknown, dropped: number) => void,
): TokenUsageRecorder {
  const insert = db
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
  const queue = createWriteBehindQueue<AuditEntry>({
    maxItems: 1000,
    flushIntervalMs: 200,
    onError,
    write(batch) {
      const lastUsed = new Map<string, number>();
      for (const e of batch) {
        if (e.decision === "allow")
          lastUsed.set(e.tokenId, Math.max(lastUsed.get(e.tokenId) ?? 0, e.createdAt));
      }
      db.transaction((tx) => {
        for (const e of batch)
          insert.run({ ...e, requiredScope: e.requiredScope ?? null, reason: e.reason ?? null });
        for (const [id, at] of lastUsed) {
          tx.update(apiTokens)
            .set({ lastUsedAt: sql`max(coalesce(${apiTokens.lastUsedAt}, 0), ${at})` })
            .where(sql`${apiTokens.id} = ${id}`)
            .run();
        }
      });
      for (const [id, at] of lastUsed) store.noteUsed(id, at);
    },
  });
  return {
    record: (entry) => queue.push(entry),
    recent() {
      queue.flush();
      return db
        .select()
        .from(apiTokenAudit)
        .orderBy(desc(apiTokenAudit.id))
        .limit(AUDIT_LISTING_LIMIT)
        .all()
        .map(renderAudit);
    },
    flush: () => void queue.flush(),
    close: () => queue.close(),
  };
}
