/**
 * A stored credential change (spec "Configured user"), keyed by the username
 * in the config file and applied over that entry; the config file is never
 * rewritten.
 */
export interface CredentialOverride {
  readonly configUsername: string;
  readonly username: string;
  readonly passwordHash: string;
  readonly authRevision: number;
  readonly updatedAt: number;
}

/**
 * What became of an override write: committed, refused because the stored
 * `auth_revision` moved (another request, or another instance, changed the
 * account first), or refused because another override holds the username.
 */
export type OverrideWrite = "saved" | "conflict" | "username_taken";

/** The stored credential overrides of the configured accounts. */
export interface AccountsRepository {
  overrides(): Promise<CredentialOverride[]>;
  /**
   * Commits `row` when the stored `auth_revision` of its account is still
   * `expectedRevision` (0: the account has no override yet): a compare-and-set,
   * so two instances changing one account cannot both win.
   */
  saveOverride(row: CredentialOverride, expectedRevision: number): Promise<OverrideWrite>;
}
