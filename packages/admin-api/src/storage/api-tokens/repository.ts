/** An administrator API token as stored: the SHA-256 digest and a display prefix, never the plaintext. */
export interface ApiTokenRow {
  readonly id: string;
  readonly name: string;
  readonly note: string;
  readonly tokenPrefix: string;
  /** Hex SHA-256 of the plaintext. */
  readonly digest: string;
  readonly scopes: string[];
  readonly enabled: boolean;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
  readonly revision: number;
  readonly updatedAt: number;
}

/** One audit record of an API-token request, allowed or denied (`token_id` "": no token matched). */
export interface AuditEntry {
  readonly tokenId: string;
  readonly tokenPrefix: string;
  readonly method: string;
  readonly path: string;
  readonly requiredScope: string | null;
  readonly decision: "allow" | "deny";
  readonly status: number;
  readonly remote: string;
  readonly userAgent: string;
  readonly requestId: string;
  readonly reason: string | null;
  readonly createdAt: number;
}

/** An audit record as stored, with its increasing id. */
export interface AuditRow extends AuditEntry {
  readonly id: number;
}

/**
 * API tokens and their audit log. Token writes are mirrored by every instance
 * (they change the `api_tokens` version); `last_used_at` and the audit log are
 * written by the usage batches and change no version: a request must not make
 * every instance reload its tokens.
 */
export interface ApiTokensRepository {
  list(): Promise<ApiTokenRow[]>;
  insert(row: ApiTokenRow): Promise<void>;
  /**
   * Replaces the token when its stored revision is still `expectedRevision`;
   * false when it moved or the token is gone. The stored `last_used_at` stays.
   */
  update(row: ApiTokenRow, expectedRevision: number): Promise<boolean>;
  /** Deletes the token when its stored revision is still `expectedRevision`; false otherwise. */
  remove(id: string, expectedRevision: number): Promise<boolean>;
  /** `last_used_at` of every token that has one (uses may have been recorded by other instances). */
  lastUsed(): Promise<Map<string, number>>;
  /** One transaction: appends the records and moves `last_used_at` forward (never back). */
  appendAudit(entries: readonly AuditEntry[], lastUsed: ReadonlyMap<string, number>): Promise<void>;
  /** The newest records of known tokens (`known`) or of unknown ones, newest first. */
  newestAudit(known: boolean, limit: number): Promise<AuditRow[]>;
  /** Deletes records created before `cutoff` (epoch ms); returns the count. */
  purgeAudit(cutoff: number): Promise<number>;
}
