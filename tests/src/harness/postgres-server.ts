/**
 * The private PostgreSQL server of the black-box suites (`server.database_url`,
 * issue 15): one per test process, password auth on loopback, stopped by a
 * watchdog when the process exits; fresh databases owned by fresh roles, their
 * schema only from the committed migrations. The one implementation lives in
 * `@svc/admin-api/testing/private-postgres`, shared with the repository unit tests.
 */
export {
  createDatabase,
  createMigratedDatabase,
  type MigratedDatabase,
  POSTGRES_MISSING,
  postgresBinDir,
  superuserUrl,
} from "@svc/admin-api/testing/private-postgres";
