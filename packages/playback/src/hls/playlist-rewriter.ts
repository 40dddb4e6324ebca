/**
 * Line-by-line HLS playlist rewriter (RFC 8216bis). Parse-and-reserialize
 * libraries were measured to corrupt LL-HLS playlists on a round trip, so every
 * line is copied verbatim except the URI it carries; unknown tags pass untouched.
 *
 * The output is compiled once per upstream answer into literal pieces and signed
 * references, independent of the viewer's credential; {@link renderPlaylist}
 * then only concatenates strings per request.
 */

/** `rewrite`: every URI through `u/`. `passthrough`: media URIs point upstream. */
export type RewritePolicy = "rewrite" | "passthrough";

export interface CompiledPlaylist {
  /** Literal text; reference `i` goes between `pieces[i]` and `pieces[i + 1]`. */
  readonly pieces: readonly string[];
  /** Signed references relative to `…/play/{id}/` (`u/…?sig=…`). */
  readonly refs: readonly string[];
  /** `#EXT-X-TARGETDURATION` in seconds, when present (media playlists). */
  readonly targetDurationSec: number | undefined;
  /** `#EXT-X-ENDLIST` seen: the playlist will not change (VOD or ended event). */
  readonly endList: boolean;
  /** Media sequence number of the last segment (RFC 8216bis 4.4.3.2); undefined without segments. */
  readonly lastMsn: number | undefined;
}

/** URIs of a kind a player fetches as a playlist, a key, or media. */
type UriKind = "playlist" | "key" | "media";

/**
 * Tags whose attribute lists carry URIs, with the kind of what they point at
 * (RFC 8216bis 4.4.4.4 KEY, 4.4.4.5 MAP, 4.4.4.9 PART, 4.4.5.1 RENDITION-REPORT,
 * 4.4.5.3 PRELOAD-HINT, 4.4.6.1 MEDIA, 4.4.6.3 I-FRAME-STREAM-INF,
 * 4.4.6.4 SESSION-DATA, 4.4.6.5 SESSION-KEY, 4.4.6.6 CONTENT-STEERING, and
 * Appendix D interstitials on DATERANGE).
 */
const URI_TAGS: ReadonlyMap<string, UriKind> = new Map([
  ["EXT-X-MEDIA", "playlist"],
  ["EXT-X-I-FRAME-STREAM-INF", "playlist"],
  ["EXT-X-RENDITION-REPORT", "playlist"],
  ["EXT-X-SESSION-DATA", "playlist"],
  ["EXT-X-CONTENT-STEERING", "playlist"],
  ["EXT-X-DATERANGE", "playlist"],
  ["EXT-X-KEY", "key"],
  ["EXT-X-SESSION-KEY", "key"],
  ["EXT-X-MAP", "media"],
  ["EXT-X-PART", "media"],
  ["EXT-X-PRELOAD-HINT", "media"],
]);

/** Attribute names that hold a URI: `URI`, `SERVER-URI` (steering), interstitial assets. */
const URI_ATTRIBUTES = new Set(["URI", "SERVER-URI", "X-ASSET-URI", "X-ASSET-LIST"]);

export interface RewriteOptions {
  /** The URL the playlist was fetched from, after redirects (RFC 8216bis 4.1: relative URIs). */
  readonly baseUrl: string;
  readonly policy: RewritePolicy;
  /** Signs an absolute http(s) target into `u/…?sig=…`. */
  readonly sign: (target: string) => string;
}

/**
 * Compiles `text` (a whole playlist starting with `#EXTM3U`). Never throws: a
 * URI that does not resolve to http(s) (`skd://`, `data:`) stays verbatim.
 */
export function compilePlaylist(text: string, options: RewriteOptions): CompiledPlaylist {
  const pieces: string[] = [];
  const refs: string[] = [];
  let literal = "";
  let targetDurationSec: number | undefined;
  let endList = false;
  let variantNext = false;
  let mediaSequence = 0;
  let segments = 0;

  /** Emits the replacement for one URI: a signed ref, or literal text. */
  const emitUri = (uri: string, kind: UriKind) => {
    const target = resolveHttp(uri, options.baseUrl);
    if (target === undefined) {
      literal += uri;
    } else if (options.policy === "passthrough" && kind === "media") {
      literal += target;
    } else {
      pieces.push(literal);
      refs.push(options.sign(target));
      literal = "";
    }
  };

  // A UTF-8 byte-order mark before #EXTM3U (RFC 8216bis 4.1 forbids it, origins send it):
  // dropped, else the first line would be read as a URI.
  const body = text.startsWith("\ufeff") ? text.slice(1) : text;
  const lines = body.split("\n");
  // A final "\n" yields an empty last element that must not add another one.
  const last = lines.length - (body.endsWith("\n") ? 1 : 0);
  for (let n = 0; n < last; n++) {
    const raw = lines[n]!;
    const cr = raw.endsWith("\r");
    const line = cr ? raw.slice(0, -1) : raw;
    const eol = cr ? "\r\n" : "\n";
    if (line.startsWith("#EXT")) {
      const colon = line.indexOf(":");
      const tag = colon === -1 ? line.slice(1) : line.slice(1, colon);
      if (tag === "EXT-X-STREAM-INF") variantNext = true;
      else if (tag === "EXT-X-ENDLIST") endList = true;
      else if (tag === "EXT-X-MEDIA-SEQUENCE") {
        const value = Number(line.slice(colon + 1));
        if (Number.isSafeInteger(value) && value >= 0) mediaSequence = value;
      } else if (tag === "EXT-X-TARGETDURATION") {
        const value = Number(line.slice(colon + 1));
        if (Number.isFinite(value) && value > 0) targetDurationSec = value;
      }
      const kind = colon === -1 ? undefined : URI_TAGS.get(tag);
      if (kind !== undefined) {
        let at = 0;
        for (const span of uriSpans(line, colon + 1)) {
          literal += line.slice(at, span.start);
          emitUri(line.slice(span.start, span.end), kind);
          at = span.end;
        }
        literal += line.slice(at) + eol;
      } else {
        literal += line + eol;
      }
    } else if (line.trim() === "" || line.startsWith("#")) {
      literal += line + eol; // blank lines and comments (RFC 8216bis 4.1)
    } else {
      // A URI line: the variant after EXT-X-STREAM-INF (4.4.6.2), else a media segment.
      const lead = line.length - line.trimStart().length;
      const uri = line.trim();
      literal += line.slice(0, lead);
      if (!variantNext) segments += 1;
      emitUri(uri, variantNext ? "playlist" : "media");
      literal += line.slice(lead + uri.length) + eol;
      variantNext = false;
    }
  }
  pieces.push(literal);
  const lastMsn = segments === 0 ? undefined : mediaSequence + segments - 1;
  return { pieces, refs, targetDurationSec, endList, lastMsn };
}

/**
 * The playlist for one request: each reference becomes `prefix + ref + query`.
 * `prefix` ends with `/play/{id}/`; `query` is "" or starts with `&`.
 */
export function renderPlaylist(p: CompiledPlaylist, prefix: string, query: string): string {
  let out = p.pieces[0]!;
  for (let i = 0; i < p.refs.length; i++) out += prefix + p.refs[i]! + query + p.pieces[i + 1]!;
  return out;
}

/** Character spans of quoted URI attribute values in an attribute list (RFC 8216bis 4.2). */
export function uriSpans(line: string, from: number): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let i = from;
  while (i < line.length) {
    const eq = line.indexOf("=", i);
    if (eq === -1) break;
    const name = line.slice(i, eq).trim();
    let next: number;
    if (line[eq + 1] === '"') {
      const close = line.indexOf('"', eq + 2);
      if (close === -1) break; // malformed: leave the rest verbatim
      if (URI_ATTRIBUTES.has(name)) spans.push({ start: eq + 2, end: close });
      next = close + 1;
    } else {
      next = eq + 1;
    }
    const comma = line.indexOf(",", next);
    if (comma === -1) break;
    i = comma + 1;
  }
  return spans;
}

/** The absolute http(s) URL `uri` refers to, or undefined (other schemes, garbage). */
function resolveHttp(uri: string, base: string): string | undefined {
  if (uri === "") return undefined;
  try {
    const u = new URL(uri, base);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    // A relative URI inherits the source URL's userinfo (RFC 3986 5.2.2), and the signed
    // target travels to the player base64url-encoded in its u/ path: the channel's
    // credentials would reach every viewer. The egress client never sends userinfo (it
    // dials origin + path), so dropping it changes no fetch (issue 14 secret sweep).
    u.username = "";
    u.password = "";
    return u.href;
  } catch {
    return undefined;
  }
}

/** RFC 8216bis 4.3.1.1: every playlist starts with `#EXTM3U` (a UTF-8 BOM tolerated). */
export function looksLikePlaylist(head: Buffer | string): boolean {
  const s = typeof head === "string" ? head : head.subarray(0, 10).toString("latin1");
  return (
    s.startsWith("#EXTM3U") ||
    s.startsWith("\u00ef\u00bb\u00bf#EXTM3U") ||
    s.startsWith("\ufeff#EXTM3U")
  );
}
