import { fileURLToPath } from "node:url";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";

/**
 * The committed drizzle-kit migrations (`packages/admin-api/drizzle`), found through
 * the package's `exports` map rather than relative to this module: the full binary is
 * one bundled file in `apps/gateway-full/dist/` (issue 13 item 5), where a path
 * relative to this module would point outside the package.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(
  new URL("..", import.meta.resolve("@svc/admin-api/drizzle/meta/_journal.json")),
);

/** Applies every migration not yet recorded in the database, in one transaction each. */
export function migrateStateDatabase(db: BetterSQLite3Database<Record<string, unknown>>): void {
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
