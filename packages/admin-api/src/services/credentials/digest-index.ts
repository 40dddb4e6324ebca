/** What a credential record needs to be indexed: its id, its SHA-256 digest, two times. */
export interface DigestIndexed {
  readonly id: string;
  readonly digest: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

/**
 * The in-memory mirror of a credential table (API tokens, playback keys): by id, and by
 * digest for the per-request lookup, so authenticating costs a map lookup, not a query.
 * The stores commit each write to the database first and then mirror it here.
 */
export class DigestIndex<R extends DigestIndexed> {
  private readonly byId = new Map<string, R>();
  private readonly idByDigest = new Map<string, string>();
  private readonly idByName = new Map<string, string>();

  /**
   * `nameOf`: a second unique key some records carry (a playback key's `xtream_username`),
   * looked up per request like the digest.
   */
  constructor(
    rows: Iterable<R>,
    private readonly nameOf: (record: R) => string | null = () => null,
  ) {
    for (const row of rows) this.put(row);
  }

  get(id: string): R | undefined {
    return this.byId.get(id);
  }

  byDigest(digest: string): R | undefined {
    const id = this.idByDigest.get(digest);
    return id === undefined ? undefined : this.byId.get(id);
  }

  byName(name: string): R | undefined {
    const id = this.idByName.get(name);
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** Oldest first (ties by id), the order of the list endpoints. */
  list(): R[] {
    return [...this.byId.values()].sort(
      (a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1),
    );
  }

  /** Inserts or replaces a record (a rotated one changes digest). */
  put(record: R): void {
    this.unindex(this.byId.get(record.id));
    this.byId.set(record.id, record);
    this.idByDigest.set(record.digest, record.id);
    const name = this.nameOf(record);
    if (name !== null) this.idByName.set(name, record.id);
  }

  delete(id: string): void {
    this.unindex(this.byId.get(id));
    this.byId.delete(id);
  }

  private unindex(old: R | undefined): void {
    if (old === undefined) return;
    this.idByDigest.delete(old.digest);
    const name = this.nameOf(old);
    if (name !== null) this.idByName.delete(name);
  }

  /** Mirrors a committed `last_used_at`; never moves it backwards. */
  noteUsed(id: string, at: number): void {
    const old = this.byId.get(id);
    if (old !== undefined && (old.lastUsedAt ?? 0) < at)
      this.byId.set(id, { ...old, lastUsedAt: at });
  }
}
