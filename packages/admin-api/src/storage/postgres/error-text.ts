/**
 * An error as one line: drizzle's query errors carry the whole statement with
 * the server's reason as their cause; Node's connect error to a name with
 * several addresses is an AggregateError with no message of its own.
 */
export function describeDbError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.message.startsWith("Failed query:") && err.cause instanceof Error)
    return describeDbError(err.cause);
  if (err instanceof AggregateError && err.message === "" && err.errors.length > 0)
    return describeDbError(err.errors[0]);
  const code = (err as NodeJS.ErrnoException).code;
  const message = err.message !== "" ? err.message : (code ?? err.name);
  return message.replace(/\s*\n\s*/g, " ");
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
