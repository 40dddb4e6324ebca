import { and, eq, ne } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";
import { credentialOverrides } from "../../db/schema-pg/index.js";
import { isUniqueViolation } from "../postgres/unique-violation.js";
import { bumpVersion } from "../postgres/versions.js";
import type { AccountsRepository, OverrideWrite } from "./repository.js";

/**
 * Credential overrides in PostgreSQL. A write locks the account's row, checks
 * its revision and the username, and bumps the `accounts` version in the same
 * transaction, so every instance reloads its directory and refuses sessions
 * of the old credential (operator contract "Cluster mode": within 1 s).
 */
export function postgresAccountsRepository(db: PgStateDb): AccountsRepository {
  return {
    async overrides() {
      return db.select().from(credentialOverrides);
    },
    async saveOverride(row, expectedRevision) {
      try {
        return await db.transaction(async (tx): Promise<OverrideWrite> => {
          const [current] = await tx
            .select({ authRevision: credentialOverrides.authRevision })
            .from(credentialOverrides)
            .where(eq(credentialOverrides.configUsername, row.configUsername))
            .for("update");
          if ((current?.authRevision ?? 0) !== expectedRevision) return "conflict";
          const [holder] = await tx
            .select({ configUsername: credentialOverrides.configUsername })
            .from(credentialOverrides)
            .where(
              and(
                eq(credentialOverrides.username, row.username),
                ne(credentialOverrides.configUsername, row.configUsername),
              ),
            );
          if (holder !== undefined) return "username_taken";
          if (current === undefined) {
            // Two first changes of one account at once: the loser inserts nothing.
            const inserted = await tx
              .insert(credentialOverrides)
              .values(row)
              .onConflictDoNothing({ target: credentialOverrides.configUsername })
              .returning({ configUsername: credentialOverrides.configUsername });
            if (inserted.length === 0) return "conflict";
          } else {
            await tx
              .update(credentialOverrides)
              .set(row)
              .where(eq(credentialOverrides.configUsername, row.configUsername));
          }
          await bumpVersion(tx, "accounts");
          return "saved";
        });
      } catch (err) {
        // Another account took the username in a concurrent transaction.
        if (isUniqueViolation(err)) return "username_taken";
        throw err;
      }
    },
  };
}
