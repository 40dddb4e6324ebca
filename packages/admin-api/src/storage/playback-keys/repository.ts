/** A playback key for `/p/{token}/…` as stored: digest and display prefix, never the plaintext. */
export interface PlaybackKeyRow {
  readonly id: string;
  readonly name: string;
  readonly note: string;
  readonly tokenPrefix: string;
  /** Hex SHA-256 of the plaintext. */
  readonly digest: string;
  /** Empty: every channel. */
  readonly channelIds: string[];
  readonly enabled: boolean;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
  readonly expiresAt: number | null;
  readonly revision: number;
}

/** One use of a playback key; the key in `path` is cut to its display prefix. */
export interface AccessEntry {
  readonly tokenId: string;
  readonly tokenPrefix: string;
  readonly path: string;
  readonly channelId: string | null;
  readonly status: number;
  readonly remote: string;
  readonly createdAt: number;
}

/** An access record as stored, with its increasing id. */
export interface AccessRow extends AccessEntry {
  readonly id: number;
}

/**
 * Playback keys and their access log. Key writes are mirrored by every
 * instance (they change the `playback_keys` version); the access log and
 * `last_used_at` change no version: playback must not make every instance
 * reload its keys.
 */
export interface PlaybackKeysRepository {
  list(): Promise<PlaybackKeyRow[]>;
  insert(row: PlaybackKeyRow): Promise<void>;
  /**
   * Replaces the key when its stored revision is still `expectedRevision`;
   * false when it moved or the key is gone. The stored `last_used_at` stays.
   */
  update(row: PlaybackKeyRow, expectedRevision: number): Promise<boolean>;
  /** Deletes the key when its stored revision is still `expectedRevision`; false otherwise. */
  remove(id: string, expectedRevision: number): Promise<boolean>;
  /** `last_used_at` of every key that has one (uses may have been recorded by other instances). */
  lastUsed(): Promise<Map<string, number>>;
  /** One transaction: appends the records and moves `last_used_at` forward (never back). */
  appendAccess(
    entries: readonly AccessEntry[],
    lastUsed: ReadonlyMap<string, number>,
  ): Promise<void>;
  /** The newest `limit` records, of one key when `tokenId` is given, newest first. */
  accessLog(query: { limit: number; tokenId: string | undefined }): Promise<AccessRow[]>;
  /** Deletes every record; returns the count. */
  clearAccessLog(): Promise<number>;
  /** Deletes records created before `cutoff` (epoch ms); returns the count. */
  purgeAccessLog(cutoff: number): Promise<number>;
}
