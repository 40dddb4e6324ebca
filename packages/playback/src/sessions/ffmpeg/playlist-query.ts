// Carry the caller's credential query on every URI of a media playlist ffmpeg wrote, so a
// player that got `index.m3u8?token=…` also sends the token for the segments it lists.

/** Tags whose URI attribute names a file of the same session (RFC 8216bis 4.4). */
const URI_TAGS = new Set([
  "#EXT-X-MAP",
  "#EXT-X-PART",
  "#EXT-X-PRELOAD-HINT",
  "#EXT-X-RENDITION-REPORT",
  "#EXT-X-MEDIA",
  "#EXT-X-I-FRAME-STREAM-INF",
]);

/** Absolute (`scheme:`) and root-relative URIs point elsewhere: left alone. */
function isSessionRelative(uri: string): boolean {
  return uri !== "" && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri) && !uri.startsWith("/");
}

/**
 * Append `query` before any fragment, with `&` when the URI already has a query, and
 * put `prefix` (a relative folder such as `live/`) in front of it.
 */
export function appendQuery(uri: string, query: string, prefix = ""): string {
  if (!isSessionRelative(uri)) return uri;
  if (query === "") return prefix + uri;
  const hash = uri.indexOf("#");
  const base = hash === -1 ? uri : uri.slice(0, hash);
  const fragment = hash === -1 ? "" : uri.slice(hash);
  const joiner = base.includes("?") ? (base.endsWith("?") || base.endsWith("&") ? "" : "&") : "?";
  return `${prefix}${base}${joiner}${query}${fragment}`;
}

/** Rewrite the URI="…" attribute of one tag line; other attributes are copied byte for byte. */
function rewriteTagUri(line: string, query: string, prefix: string): string {
  // Attribute names are [A-Z0-9-]+ and quoted values contain no quote (4.2), so a scan for
  // `URI="` at an attribute start (after `:` or `,`) cannot match inside another value.
  return line.replace(/([:,])URI="([^"]*)"/, (_m, lead: string, uri: string) => {
    return `${lead}URI="${appendQuery(uri, query, prefix)}"`;
  });
}

/**
 * Append a query string (`token=…`, with or without the leading `?`) to every segment URI
 * and every URI attribute of the playlist, line by line, with an optional relative folder
 * `prefix` in front of each (for a copy served one level up). The query is inserted verbatim:
 * never re-encoded, so a signed value stays valid. Line endings are preserved.
 * @example appendQueryToPlaylist('#EXT-X-MAP:URI="init-r0.mp4"\n#EXTINF:2,\nr0-5.m4s\n', "token=abc")
 * // '#EXT-X-MAP:URI="init-r0.mp4?token=abc"\n#EXTINF:2,\nr0-5.m4s?token=abc\n'
 */
export function appendQueryToPlaylist(text: string, query: string, prefix = ""): string {
  const q = query.startsWith("?") ? query.slice(1) : query;
  if (q === "" && prefix === "") return text;
  return text
    .split(/(\r?\n)/)
    .map((piece) => {
      if (piece === "\n" || piece === "\r\n") return piece;
      const line = piece.trim();
      if (line === "") return piece;
      if (line.startsWith("#")) {
        const colon = line.indexOf(":");
        const tag = colon === -1 ? line : line.slice(0, colon);
        return URI_TAGS.has(tag) ? rewriteTagUri(piece, q, prefix) : piece;
      }
      return appendQuery(line, q, prefix);
    })
    .join("");
}
