import { and, eq, ne } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { credentialOverrides } from "../../db/schema/index.js";
import type { AccountsRepository, OverrideWrite } from "./repository.js";

/** Credential overrides in the embedded SQLite database (one synchronous transaction per write). */
export function sqliteAccountsRepository(db: StateDb): AccountsRepository {
  return {
    async overrides() {
      return db.select().from(credentialOverrides).all();
    },
    async saveOverride(row, expectedRevision) {
      return db.transaction((tx): OverrideWrite => {
        const current = tx
          .select({ authRevision: credentialOverrides.authRevision })
          .from(credentialOverrides)
          .where(eq(credentialOverrides.configUsername, row.configUsername))
          .get();
        if ((current?.authRevision ?? 0) !== expectedRevision) return "conflict";
        const holder = tx
          .select({ configUsername: credentialOverrides.configUsername })
          .from(credentialOverrides)
          .where(
            and(
              eq(credentialOverrides.username, row.username),
              ne(credentialOverrides.configUsername, row.configUsername),
            ),
          )
          .get();
        if (holder !== undefined) return "username_taken";
        tx.insert(credentialOverrides)
          .values(row)
          .onConflictDoUpdate({ target: credentialOverrides.configUsername, set: row })
          .run();
        return "saved";
      });
    },
  };
}
