/**
 * `server.database_url` (operator contract "Cluster mode"): a PostgreSQL URL,
 * `postgres://user[:password]@host[:port]/database`. The password is a secret:
 * nothing here ever puts the value into a message; logs show {@link redactDatabaseUrl}.
 */

const PROTOCOLS = new Set(["postgres:", "postgresql:"]);

/** Query parameters libpq and node-postgres read a secret from. */
const SECRET_PARAMS = ["password", "sslpassword"];

/**
 * Whether `value` is a PostgreSQL URL the driver can connect with: the
 * `postgres:` or `postgresql:` scheme and a host (in the authority, or as the
 * `host` parameter naming a unix socket directory).
 * @example isPostgresUrl("postgres://svc@db.internal:5432/svc") // true
 */
export function isPostgresUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return PROTOCOLS.has(url.protocol) && (url.hostname !== "" || url.searchParams.has("host"));
}

/**
 * The URL without its password (user info and query parameters), for logs and
 * the startup summary; a value that does not parse gives a fixed placeholder,
 * never the input.
 * @example redactDatabaseUrl("postgres://svc:s3cret@db:5432/svc") // "postgres://svc@db:5432/svc"
 */
export function redactDatabaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "(unparsable database URL)";
  }
  url.password = "";
  for (const name of SECRET_PARAMS) url.searchParams.delete(name);
  return url.toString();
}
