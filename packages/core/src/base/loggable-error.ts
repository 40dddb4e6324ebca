/**
 * An error as the gateway logs it (the logger's `err` serializer). A database
 * error keeps its class and code and loses its text: drizzle's query error
 * carries the statement and its parameters (proxy URLs with passwords, header
 * values, password hashes), and a server's reason can quote a value
 * (PostgreSQL: `invalid input syntax for type integer: "…"`, a row in `detail`).
 */
export interface LoggedError {
  readonly type: string;
  readonly message?: string;
  /** `SQLITE_CONSTRAINT_UNIQUE`, a PostgreSQL SQLSTATE (`23505`), `ECONNREFUSED`. */
  readonly code?: string | number;
  readonly stack?: string;
  readonly cause?: LoggedError;
  readonly errors?: readonly LoggedError[];
  readonly [field: string]: unknown;
}

/**
 * SQLSTATE classes whose messages speak of the connection, the login, the
 * server or the schema, never of a row's values: 08 connection, 28 login,
 * 3D database name, 42 syntax and schema objects (drizzle binds every value,
 * so a statement's text holds none), 53 resources, 57 operator intervention,
 * 58 system. The others (22 data, 23 integrity, P0 raise, …) may quote one.
 */
const PG_CLASSES_WITH_SAFE_TEXT = new Set(["08", "28", "3D", "42", "53", "57", "58"]);
/** PostgreSQL error fields that name schema objects only. */
const PG_SCHEMA_FIELDS = ["severity", "schema", "table", "column", "constraint", "routine"];
/** Nesting followed through `cause` and `errors`. */
const MAX_DEPTH = 5;

/**
 * @example
 * log.error({ err }, "unhandled error"); // through createLogger's serializer
 * loggableError(drizzleError); // { type: "DrizzleQueryError", stack, cause: { type: "SqliteError", code: "SQLITE_READONLY", stack } }
 */
export function loggableError(err: unknown, depth = 0): LoggedError {
  if (!(err instanceof Error)) return { type: typeof err, message: String(err) };
  const type = err.constructor?.name || err.name;
  const nested = (e: unknown) => (depth < MAX_DEPTH ? loggableError(e, depth + 1) : undefined);
  if (isQueryError(err)) {
    // The wrapper's message is the statement and its parameters: only the driver's error below it.
    const cause = err.cause === undefined ? undefined : nested(err.cause);
    return { type: "DrizzleQueryError", stack: framesOf(err), ...(cause && { cause }) };
  }
  const code = (err as { code?: unknown }).code;
  if (isSqliteError(err, code))
    // SQLite's texts name tables and columns, but a trigger's RAISE or a function may say anything.
    return {
      type: err.name === "SqliteError" ? err.name : type,
      code: String(code),
      stack: framesOf(err),
    };
  if (isPgServerError(err, code)) {
    // Named here: a bundler may rename the class (esbuild made it `DatabaseError2`).
    const out: Record<string, unknown> = { type: "DatabaseError", code, stack: framesOf(err) };
    if (PG_CLASSES_WITH_SAFE_TEXT.has(code.slice(0, 2))) out.message = err.message;
    for (const f of PG_SCHEMA_FIELDS) {
      const v = (err as unknown as Record<string, unknown>)[f];
      if (typeof v === "string" && v !== "") out[f] = v;
    }
    return out as LoggedError;
  }
  const out: Record<string, unknown> = { type, message: err.message, stack: err.stack };
  // Own fields of plain values, as pino's serializer keeps them (`code`, `syscall`, `port`);
  // objects stay out, errors go through this function.
  for (const [k, v] of Object.entries(err)) {
    if (k === "cause" || k === "errors" || k in out) continue;
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
  }
  if (err.cause !== undefined) {
    const cause = nested(err.cause);
    if (cause !== undefined) out.cause = cause;
  }
  if (err instanceof AggregateError && depth < MAX_DEPTH)
    out.errors = err.errors.slice(0, 5).map((e) => loggableError(e, depth + 1));
  return out as LoggedError;
}

/** drizzle's `DrizzleQueryError` (not exported by name from every entry point: matched by shape). */
function isQueryError(err: Error): boolean {
  const e = err as { query?: unknown; params?: unknown };
  return (typeof e.query === "string" && "params" in e) || err.message.startsWith("Failed query:");
}

function isSqliteError(err: Error, code: unknown): boolean {
  return err.name === "SqliteError" || (typeof code === "string" && code.startsWith("SQLITE_"));
}

/** node-postgres's `DatabaseError`: a server's answer, with a severity and a five-character SQLSTATE. */
function isPgServerError(err: Error, code: unknown): code is string {
  return (
    typeof (err as { severity?: unknown }).severity === "string" &&
    typeof code === "string" &&
    /^[0-9A-Z]{5}$/.test(code)
  );
}

/** The stack's frames without its first line, which repeats the message. */
function framesOf(err: Error): string | undefined {
  const frames = (err.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l));
  return frames.length === 0 ? undefined : frames.join("\n");
}
