/**
 * The private PostgreSQL server of the black-box suites (`server.database_url`,
 * issue 15): one per test process, password auth on loopback, stopped by a
 * watchdog when the process exits; fresh databases owned by fresh roles, their
 * schema only from the committed migrations. The server lives in
 * `@svc/test-kits/private-postgres`, shared with the repository unit tests; the
 * migrations here are the gateway's own (`migrateUnderLock`).
 */
import { migrateUnderLock } from "@svc/admin-api/storage/postgres/migrate";
import {
  createMigratedDatabase as createWithSchema,
  type MigratedDatabase,
} from "@svc/test-kits/private-postgres";

export {
  createDatabase,
  POSTGRES_MISSING,
  postgresBinDir,
  superuserUrl,
} from "@svc/test-kits/private-postgres";

/** A fresh database with the gateway's state schema (committed migrations) and a pool on it. */
export function createMigratedDatabase(): Promise<MigratedDatabase<undefined>> {
  return createWithSchema({ migrate: migrateUnderLock, connect: () => undefined });
}
