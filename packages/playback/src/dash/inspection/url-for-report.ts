/**
 * A URL as it may appear in a probe result (spec: "Returned URLs in probe results have
 * credentials, query string and fragment removed"): scheme, host, port and path only.
 * Anything that does not parse as an absolute URL gives "" rather than echoing the input.
 * @example urlForReport("https://user:pw@cdn.example/live/a.mpd?token=x#t=5") // "https://cdn.example/live/a.mpd"
 */
export function urlForReport(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "";
  }
  // Only hierarchical http(s) URLs are reported; `data:` or `javascript:` would carry their
  // whole content in the path.
  if (u.protocol !== "http:" && u.protocol !== "https:") return "";
  return `${u.protocol}//${u.host}${u.pathname}`;
}
