/**
 * LL-HLS delivery directives a player adds to a playlist request (RFC 8216bis
 * 6.2.5.2 `_HLS_msn`/`_HLS_part`, 6.2.5.1 `_HLS_skip`). They are forwarded
 * upstream as given, after validation, and make the request a blocking one.
 */
export function llHlsDirectives(query: (name: string) => string | undefined): string {
  const parts: string[] = [];
  const msn = query("_HLS_msn");
  const part = query("_HLS_part");
  const skip = query("_HLS_skip");
  if (msn !== undefined && /^\d{1,15}$/.test(msn)) {
    parts.push(`_HLS_msn=${msn}`);
    if (part !== undefined && /^\d{1,9}$/.test(part)) parts.push(`_HLS_part=${part}`);
  }
  if (skip === "YES" || skip === "v2") parts.push(`_HLS_skip=${skip}`);
  return parts.join("&");
}

/** `url` with `directives` appended to its query, the existing query kept byte for byte. */
export function withDirectives(url: string, directives: string): string {
  if (directives === "") return url;
  const hash = url.indexOf("#");
  const bare = hash === -1 ? url : url.slice(0, hash);
  return `${bare}${bare.includes("?") ? "&" : "?"}${directives}`;
}
