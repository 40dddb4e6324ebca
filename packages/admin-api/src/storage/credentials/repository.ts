import { and, desc, eq, isNotNull, lt, sql } from "drizzle-orm";
import type * as schema from "../../db/schema/index.js";
import type { Dialect, Tables } from "../dialect/dialect.js";
import { usageAppender } from "./usage-log.js";

/** An administrator API token as stored: the SHA-256 digest and a display prefix, never the plaintext. */
export type ApiTokenRow = Readonly<typeof schema.apiTokens.$inferSelect>;
/** One audit record of an API-token request, allowed or denied (`token_id` "": no token matched). */
export type AuditEntry = Readonly<Omit<AuditRow, "id" | "stampUs">>;
/** An audit record as stored, with its increasing id and its time stamp (see {@link Stamped}). */
export type AuditRow = Readonly<typeof schema.apiTokenAudit.$inferSelect>;
/** A playback key for `/p/{token}/…` as stored: digest and display prefix, never the plaintext. */
export type PlaybackKeyRow = Readonly<typeof schema.playbackKeys.$inferSelect>;
/** One use of a playback key; the key in `path` is cut to its display prefix. */
export type AccessEntry = Readonly<Omit<AccessRow, "id" | "stampUs">>;
/** An access record as stored, with its increasing id and its time stamp (see {@link Stamped}). */
export type AccessRow = Readonly<typeof schema.playbackAccessLog.$inferSelect>;
/**
 * A usage record as written: with the time it was recorded in epoch microseconds, which
 * orders the listings. Several workers each write their own batches, so ids do not follow
 * the requests across workers (docs/cluster.md "Workers").
 */
export type Stamped<Entry> = Entry & { readonly stampUs: number };

/**
 * A credential table (API tokens, playback keys) and its usage log (the audit, the access
 * log). Credential writes are mirrored by every instance (they change the table's version);
 * `last_used_at` and the log are written by the usage batches and change no version: a
 * request must not make every instance reload the credentials.
 */
export interface CredentialRepository<Row, Entry> {
  list(): Promise<Row[]>;
  insert(row: Row): Promise<void>;
  /**
   * Replaces the credential when its stored revision is still `expectedRevision`;
   * false when it moved or the credential is gone. The stored `last_used_at` stays.
   */
  update(row: Row, expectedRevision: number): Promise<boolean>;
  /** Deletes the credential when its stored revision is still `expectedRevision`; false otherwise. */
  remove(id: string, expectedRevision: number): Promise<boolean>;
  /** `last_used_at` of every credential that has one (other instances record uses too). */
  lastUsed(): Promise<Map<string, number>>;
  /** One transaction: appends the records and moves `last_used_at` forward (never back). */
  appendLog(entries: readonly Entry[], lastUsed: ReadonlyMap<string, number>): Promise<void>;
  /** Deletes records created before `cutoff` (epoch ms); returns the count. */
  purgeLog(cutoff: number): Promise<number>;
}

export interface ApiTokensRepository
  extends CredentialRepository<ApiTokenRow, Stamped<AuditEntry>> {
  /** The newest records of known tokens (`known`) or of unknown ones, newest (by stamp) first. */
  newestAudit(known: boolean, limit: number): Promise<AuditRow[]>;
}

export interface PlaybackKeysRepository
  extends CredentialRepository<PlaybackKeyRow, Stamped<AccessEntry>> {
  /** The newest `limit` records, of one key when `tokenId` is given, newest (by stamp) first. */
  accessLog(query: { limit: number; tokenId: string | undefined }): Promise<AccessRow[]>;
  /** Deletes every record; returns the count. */
  clearAccessLog(): Promise<number>;
}

type CredentialKind = "apiTokens" | "playbackKeys";
const LOG_OF = { apiTokens: "apiTokenAudit", playbackKeys: "playbackAccessLog" } as const;

/** The part both credential tables share, over either one. */
function credentialRepository<Row extends { readonly id: string }, Entry extends object>(
  d: Dialect,
  kind: CredentialKind,
): CredentialRepository<Row, Entry> {
  // Both tables have these columns, typed alike; rows pass through whole.
  const t = d.tables[kind] as Tables["playbackKeys"];
  const log = d.tables[LOG_OF[kind]] as Tables["playbackAccessLog"];
  const resource = kind === "apiTokens" ? "api_tokens" : "playback_keys";
  const current = (id: string, revision: number) => and(eq(t.id, id), eq(t.revision, revision));
  const wrote = (rows: readonly unknown[]) => rows.length === 1;
  return {
    list: async () => (await d.db.select().from(t)) as unknown as Row[],
    async insert(row) {
      await d.write(resource, (tx) => tx.insert(t).values(row as never));
    },
    async update(row, expectedRevision) {
      const { id, lastUsedAt: _kept, ...fields } = row as Row & { lastUsedAt: unknown };
      const changed = await d.write(
        resource,
        (tx) =>
          tx
            .update(t)
            .set(fields as never)
            .where(current(id, expectedRevision))
            .returning({ id: t.id }),
        wrote,
      );
      return wrote(changed);
    },
    async remove(id, expectedRevision) {
      const gone = await d.write(
        resource,
        (tx) => tx.delete(t).where(current(id, expectedRevision)).returning({ id: t.id }),
        wrote,
      );
      return wrote(gone);
    },
    async lastUsed() {
      const rows = await d.db
        .select({ id: t.id, at: t.lastUsedAt })
        .from(t)
        .where(isNotNull(t.lastUsedAt));
      return new Map(rows.map((r) => [r.id, r.at ?? 0]));
    },
    appendLog: usageAppender<Entry>(d, kind),
    purgeLog: async (cutoff) =>
      d.affected(await d.transaction((tx) => tx.delete(log).where(lt(log.createdAt, cutoff)))),
  };
}

/** API tokens and their audit log. */
export function apiTokensRepository(d: Dialect): ApiTokensRepository {
  const audit = d.tables.apiTokenAudit;
  return {
    ...credentialRepository(d, "apiTokens"),
    newestAudit: (known, limit) =>
      d.db
        .select()
        .from(audit)
        // Literal '' (not a bound parameter), so the planner picks the matching partial index.
        .where(known ? sql`${audit.tokenId} <> ''` : sql`${audit.tokenId} = ''`)
        .orderBy(desc(audit.stampUs), desc(audit.id))
        .limit(limit),
  };
}

/** Playback keys and their access log. */
export function playbackKeysRepository(d: Dialect): PlaybackKeysRepository {
  const log = d.tables.playbackAccessLog;
  return {
    ...credentialRepository(d, "playbackKeys"),
    accessLog: ({ limit, tokenId }) =>
      d.db
        .select()
        .from(log)
        .where(tokenId === undefined ? undefined : eq(log.tokenId, tokenId))
        .orderBy(desc(log.stampUs), desc(log.id))
        .limit(limit),
    clearAccessLog: async () => d.affected(await d.transaction((tx) => tx.delete(log))),
  };
}
