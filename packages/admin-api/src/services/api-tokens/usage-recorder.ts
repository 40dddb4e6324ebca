import { isoSeconds } from "@svc/core/auth";
import { rateLimitSubject } from "@svc/core/http";
import { desc, lt, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { apiTokenAudit, apiTokens } from "../../db/schema/index.js";
import { createWriteBehindQueue } from "../queue/write-behind-queue.js";
import type { ApiTokenStore } from "./token-store.js";
import {
  createUnknownTokenFold,
  type FoldedDenials,
  UNKNOWN_TOKEN_BUDGET,
} from "./unknown-token-fold.js";

export type AuditEntry = typeof apiTokenAudit.$inferInsert;

/** Spec "Limits": the token audit listing shows the 100 most recent records. */
export const AUDIT_LISTING_LIMIT = 100;
/**
 * At most this many records of unknown tokens (`token_id` "") take places in
 * the listing: anonymous requests can never push real tokens' records out of it.
 */
export const AUDIT_LISTING_UNKNOWN_MAX = 20;
/** Stored paths are cut to this many characters (the path is the client's to choose). */
export const AUDIT_PATH_MAX = 256;

export interface TokenUsageRecorder {
  /** Queues an audit record of a real token; an allowed use also moves its `last_used_at`. */
  record(entry: AuditEntry): void;
  /**
   * A denial of a bearer that matches no token: recorded one by one within
   * {@link UNKNOWN_TOKEN_BUDGET}, folded into a summary record beyond it.
   */
  recordUnknown(entry: AuditEntry): void;
  /** The 100 most recent records, after writing everything queued. */
  recent(): ReturnType<typeof renderAudit>[];
  /** Retention: deletes records older than `days`; returns the count. */
  purge(days: number, now?: number): number;
  flush(): void;
  close(): void;
}

/** A path as stored: bounded, with a marker when cut. */
function boundedPath(path: string): string {
  return path.length <= AUDIT_PATH_MAX ? path : `${path.slice(0, AUDIT_PATH_MAX - 1)}…`;
}

/** The one record standing for a window's folded unknown-token denials. */
function foldedRecord(f: FoldedDenials, now: number): AuditEntry {
  return {
    tokenId: "",
    tokenPrefix: "",
    method: "*",
    path: `(${f.count} more requests with unknown API tokens from ${f.clients} client(s) since ${isoSeconds(new Date(f.since))}, folded)`,
    requiredScope: null,
    decision: "deny",
    status: 401,
    remote: f.topClient,
    userAgent: "",
    requestId: "",
    reason: "invalid",
    createdAt: now,
  };
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
  const fold = createUnknownTokenFold(UNKNOWN_TOKEN_BUDGET, (f) =>
    queue.push(foldedRecord(f, Date.now())),
  );
  const endWindow = () => {
    const now = Date.now();
    const folded = fold.close(now);
    if (folded !== undefined) queue.push(foldedRecord(folded, now));
  };
  const windowTimer = setInterval(endWindow, UNKNOWN_TOKEN_BUDGET.windowMs);
  windowTimer.unref();
  const newest = (known: boolean, limit: number) =>
    db
      .select()
      .from(apiTokenAudit)
      // Literal '' (not a bound parameter), so SQLite picks the matching partial index.
      .where(known ? sql`${apiTokenAudit.tokenId} != ''` : sql`${apiTokenAudit.tokenId} = ''`)
      .orderBy(desc(apiTokenAudit.id))
      .limit(limit)
      .all();
  return {
    record: (entry) => queue.push({ ...entry, path: boundedPath(entry.path) }),
    recordUnknown(entry) {
      if (fold.admit(rateLimitSubject(entry.remote), entry.createdAt))
        queue.push({ ...entry, path: boundedPath(entry.path) });
    },
    recent() {
      endWindow();
      queue.flush();
      return [...newest(true, AUDIT_LISTING_LIMIT), ...newest(false, AUDIT_LISTING_UNKNOWN_MAX)]
        .sort((a, b) => b.id - a.id)
        .slice(0, AUDIT_LISTING_LIMIT)
        .map(renderAudit);
    },
    purge(days, now = Date.now()) {
      queue.flush();
      const cutoff = now - days * 86_400_000;
      return db.delete(apiTokenAudit).where(lt(apiTokenAudit.createdAt, cutoff)).run().changes;
    },
    flush: () => void queue.flush(),
    close() {
      clearInterval(windowTimer);
      endWindow();
      queue.close();
    },
  };
}
