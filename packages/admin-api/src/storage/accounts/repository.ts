import { and, eq } from "drizzle-orm";
import type { Dialect } from "../dialect/dialect.js";

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

/**
 * Credential overrides, one compare-and-set statement per write: an update from the
 * expected `auth_revision`, or the first insert when it is 0 (of two first changes at once,
 * the loser inserts nothing). Another override holding the username is the unique
 * constraint's refusal. On PostgreSQL the `accounts` version moves in the same
 * transaction, so every instance reloads its directory and refuses sessions of the old
 * credential (operator contract "Cluster mode": within 1 s).
 */
export function accountsRepository(d: Dialect): AccountsRepository {
  const t = d.tables.credentialOverrides;
  return {
    overrides: () => d.db.select().from(t),
    async saveOverride(row, expectedRevision) {
      try {
        const saved = await d.write(
          "accounts",
          (tx) =>
            expectedRevision === 0
              ? tx
                  .insert(t)
                  .values(row)
                  .onConflictDoNothing({ target: t.configUsername })
                  .returning({ name: t.configUsername })
              : tx
                  .update(t)
                  .set(row)
                  .where(
                    and(
                      eq(t.configUsername, row.configUsername),
                      eq(t.authRevision, expectedRevision),
                    ),
                  )
                  .returning({ name: t.configUsername }),
          (rows) => rows.length > 0,
        );
        return saved.length > 0 ? "saved" : "conflict";
      } catch (err) {
        if (d.isUniqueViolation(err)) return "username_taken";
        throw err;
      }
    },
  };
}
