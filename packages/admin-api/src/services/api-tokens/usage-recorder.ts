import {
  type FoldedDenials,
  isoSeconds,
  localUnknownTokenFold,
  type SharedUnknownTokenFold,
  UNKNOWN_TOKEN_BUDGET,
} from "@svc/core/auth";
import { rateLimitSubject } from "@svc/core/http";
import type {
  ApiTokensRepository,
  AuditEntry,
  AuditRow,
} from "../../storage/credentials/repository.js";
import { createUsageQueue, usageStamp } from "../credentials/usage-queue.js";
import type { ApiTokenStore } from "./token-store.js";

export type { AuditEntry } from "../../storage/credentials/repository.js";

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
  recent(): Promise<ReturnType<typeof renderAudit>[]>;
  /** Retention: deletes records older than `days`; returns the count. */
  purge(days: number, now?: number): Promise<number>;
  /** Writes everything queued (and any write in flight), the other workers' too. */
  flush(): Promise<void>;
  /** Writes this process's queue only (what another worker's `flush` asks of this one). */
  flushLocal(): Promise<void>;
  close(): Promise<void>;
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

function renderAudit(a: AuditRow) {
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
 * a request never waits for a database write, and each batch is one
 * transaction. The batch moves `last_used_at` without touching the tokens'
 * version, so other instances do not reload their mirrors for it; listings
 * read the committed times instead ({@link ApiTokenStore.refreshUsage}).
 */
export function createTokenUsageRecorder(
  repo: ApiTokensRepository,
  store: ApiTokenStore,
  onError: (err: unknown, dropped: number) => void,
  workers: {
    /** Has every other worker write its queue (docs/cluster.md "Workers"). */
    readonly flushOthers?: () => Promise<void>;
    /** The gateway's one fold, held by the workers' primary; a single process has its own. */
    readonly fold?: SharedUnknownTokenFold;
  } = {},
): TokenUsageRecorder {
  // An allowed use moves the token's `last_used_at`; a denial does not.
  const queue = createUsageQueue(repo, store, {
    maxItems: 1000,
    counts: (e) => e.decision === "allow",
    onError,
  });
  const fold = workers.fold ?? localUnknownTokenFold(UNKNOWN_TOKEN_BUDGET);
  fold.onWindowEnd((f) => queue.push(foldedRecord(f, Date.now())));
  const flush = async () => {
    await queue.flush();
    await workers.flushOthers?.();
  };
  const endWindow = async () => {
    const now = Date.now();
    const folded = await fold.close(now);
    if (folded !== undefined) queue.push(foldedRecord(folded, now));
  };
  return {
    record: (entry) => queue.push({ ...entry, path: boundedPath(entry.path) }),
    recordUnknown(entry) {
      // Stamped now: with workers the fold's answer comes later, from the primary.
      const stampUs = usageStamp();
      const write = () => queue.push({ ...entry, path: boundedPath(entry.path) }, stampUs);
      const admitted = fold.admit(rateLimitSubject(entry.remote), entry.createdAt);
      if (admitted === true) write();
      else if (admitted !== false) void admitted.then((yes) => yes && write());
    },
    async recent() {
      await endWindow();
      await flush();
      const [known, unknown] = await Promise.all([
        repo.newestAudit(true, AUDIT_LISTING_LIMIT),
        repo.newestAudit(false, AUDIT_LISTING_UNKNOWN_MAX),
      ]);
      return [...known, ...unknown]
        .sort((a, b) => b.stampUs - a.stampUs || b.id - a.id)
        .slice(0, AUDIT_LISTING_LIMIT)
        .map(renderAudit);
    },
    purge: queue.purge,
    flush,
    flushLocal: queue.flush,
    async close() {
      fold.stop();
      await endWindow();
      await queue.close();
    },
  };
}
