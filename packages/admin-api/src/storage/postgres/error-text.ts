import { type LoggedError, loggableError } from "@svc/core/log";

/**
 * An error as one line, from its loggable record (so a query's statement,
 * parameters and value-quoting server text never reach it): drizzle's query
 * error gives way to the driver's error below it; Node's connect error to a
 * name with several addresses is an AggregateError with no message of its own.
 */
export function describeDbError(err: unknown): string {
  return describeRecord(loggableError(err));
}

function describeRecord(r: LoggedError): string {
  if (r.type === "DrizzleQueryError" && r.cause !== undefined) return describeRecord(r.cause);
  if (r.message === "" && r.errors !== undefined && r.errors.length > 0)
    return describeRecord(r.errors[0]!);
  if (r.message === "") return String(r.code ?? r.type);
  if (r.message !== undefined) return r.message.replace(/\s*\n\s*/g, " ");
  // A database error without its text: class, code and the schema object it names.
  const where = [r.table, r.column, r.constraint].filter((v) => typeof v === "string").join(".");
  return [r.type, r.code, where === "" ? undefined : `(${where})`]
    .filter((v) => v !== undefined && v !== "")
    .join(" ");
}

/** A second fence: the driver's messages do not quote the password, and this makes sure. */
export function withoutSecrets(message: string, url: string): string {
  let secrets: string[] = [];
  try {
    const u = new URL(url);
    secrets = [u.password, decodeURIComponent(u.password), u.searchParams.get("password") ?? ""];
  } catch {
    return message;
  }
  let out = message;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join("***");
  return out;
}
