import { fileURLToPath } from "node:url";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";

/**
 * The committed drizzle-kit migrations (`packages/admin-api/drizzle`), found
 * relative to this module so the built `dist/db/migrate.js` reads them in place.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Applies every migration not yet recorded in the database, in one transaction each. */
export function migrateStateDatabase(db: BetterSQLite3Database<Record<string, unknown>>): void {
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
