/**
 * Spec "Channel": request headers whose values are secrets — `authorization`,
 * `proxy-authorization`, `cookie`, and any name containing `token`, `secret` or
 * `api-key`. Admin responses blank them; egress sends them only to the channel
 * source's own origin (issue 12 item 4).
 */
export function isSensitiveHeader(name: string): boolean {
  const n = name.toLowerCase();
  return (
    n === "authorization" ||
    n === "proxy-authorization" ||
    n === "cookie" ||
    n.includes("token") ||
    n.includes("secret") ||
    n.includes("api-key")
  );
}

/** `headers` without the sensitive ones (user agent and plain headers stay). */
export function withoutSensitiveHeaders(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!isSensitiveHeader(k)) out[k] = v;
  return out;
}
