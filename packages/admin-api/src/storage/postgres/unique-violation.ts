/** PostgreSQL's SQLSTATE for a unique constraint violation. */
const UNIQUE_VIOLATION = "23505";

/** True when `err` (or the driver error drizzle wraps in `cause`) is a unique violation. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; depth++) {
    if ((e as { code?: unknown }).code === UNIQUE_VIOLATION) return true;
    e = e.cause;
  }
  return false;
}
