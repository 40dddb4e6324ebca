/**
 * The origin that generated URLs start with (operator contract "Wire details"):
 * `public_base_url` when set, else the request's own scheme and `Host`.
 */
export function publicBase(
  configured: string,
  requestUrl: string,
  host: string | undefined,
): string {
  if (configured !== "") return configured.replace(/\/+$/, "");
  const scheme = requestUrl.startsWith("https:") ? "https" : "http";
  const safeHost = host !== undefined && isPlainHost(host) ? host : new URL(requestUrl).host;
  return `${scheme}://${safeHost}`;
}

/** A `Host` value made only of host-name, IP literal and port characters. */
export function isPlainHost(host: string): boolean {
  return /^[A-Za-z0-9.\-_:[\]]+$/.test(host);
}
