/**
 * A loopback port nothing listens on: the one implementation lives with the
 * private PostgreSQL server in `@svc/admin-api/testing/` (unit tests there
 * cannot import this package).
 */
export { freePort } from "@svc/admin-api/testing/free-port";
