import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type { PoolClient } from "pg";

/**
 * The committed PostgreSQL migrations (`packages/admin-api/drizzle-pg`), found
 * through the package's `exports` map like the SQLite ones (`db/migrate.ts`):
 * the full binary is one bundled file, where a path relative to this module
 * would point outside the package.
 */
export const PG_MIGRATIONS_FOLDER = fileURLToPath(
  new URL("..", import.meta.resolve("@svc/admin-api/drizzle-pg/meta/_journal.json")),
);

/**
 * The advisory lock key of the gateway's migrations ("svc-migr" as a 64-bit
 * integer): one constant every instance and version agrees on.
 */
const MIGRATION_LOCK_KEY = "8319946408373872498";

/** drizzle's own record of applied migrations (its defaults, as `migrate` uses them). */
const APPLIED_TABLE = "drizzle.__drizzle_migrations";

/**
 * Applies every migration the database has not recorded, holding a session
 * advisory lock on `client` the whole time (operator contract "Cluster mode":
 * instances starting together do not race; the second one waits, then finds
 * nothing left to do). The lock belongs to the connection: a crashed instance
 * releases it when the server drops its session. Resolves with how many
 * migrations this call applied.
 */
export async function migrateUnderLock(client: PoolClient): Promise<number> {
  await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
  try {
    const before = await appliedCount(client);
    await migrate(drizzle(client), { migrationsFolder: PG_MIGRATIONS_FOLDER });
    return (await appliedCount(client)) - before;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
  }
}

async function appliedCount(client: PoolClient): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [
    APPLIED_TABLE,
  ]);
  if (exists.rows[0]?.t == null) return 0;
  const r = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${APPLIED_TABLE}`);
  return r.rows[0]?.n ?? 0;
}
