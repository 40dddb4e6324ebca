/**
 * An extended M3U parser for IPTV playlists (the `#EXTM3U` dialect players and panels write:
 * `#EXTINF` attributes, `#EXTGRP`, `#EXTVLCOPT`, `#KODIPROP`). It walks the text line by line
 * without splitting it into an array, so a 40,000-entry playlist costs one pass and the
 * entries. It never throws: a line it cannot read becomes a skipped entry with a reason.
 */

/** One URL line with everything the directives before it said. */
export interface M3uEntry {
  /** 1-based line number of the URL line. */
  readonly line: number;
  readonly url: string;
  readonly title: string;
  /** `#EXTINF` attributes, names lowercased (`tvg-id`, `group-title`, `catchup`, …). */
  readonly attributes: Readonly<Record<string, string>>;
  /** `#EXTGRP:` value. */
  readonly extgrp: string;
  /** `#EXTVLCOPT:name=value` options, names lowercased. */
  readonly vlc: Readonly<Record<string, string>>;
  /** `#KODIPROP:name=value` properties, names lowercased. */
  readonly kodi: Readonly<Record<string, string>>;
}

export interface M3uDocument {
  /** `x-tvg-url` (or `url-tvg`) of the `#EXTM3U` header, "" when absent. */
  readonly tvgUrl: string;
  readonly entries: readonly M3uEntry[];
  /** Lines that were read but could not be used, with the reason (malformed directives). */
  readonly problems: readonly { readonly line: number; readonly reason: string }[];
}

/** Longest line read; longer ones are skipped (no player writes them, a hostile file might). */
export const MAX_LINE_CHARS = 65_536;

export type ParseResult = { ok: true; value: M3uDocument } | { ok: false; message: string };

/**
 * @example
 * const r = parseM3u('#EXTM3U\n#EXTINF:-1 tvg-id="a" group-title="News",A\nhttp://x/a.m3u8\n');
 * r.ok && r.value.entries[0]!.attributes["group-title"] // "News"
 */
export function parseM3u(text: string): ParseResult {
  // A UTF-8 byte order mark is common in files saved by Windows editors.
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNo = 0;
  let header = false;
  let tvgUrl = "";
  const entries: M3uEntry[] = [];
  const problems: { line: number; reason: string }[] = [];
  let pending = freshPending();
  const eol = /\r\n|\r|\n/g;
  while (pos <= text.length) {
    // CR, LF and CRLF all end a line (files mix them after hand edits).
    eol.lastIndex = pos;
    const m = eol.exec(text);
    const end = m === null ? text.length : m.index;
    const raw = text.slice(pos, end);
    pos = m === null ? text.length + 1 : end + m[0].length;
    lineNo++;
    const line = raw.trim();
    if (line === "") continue;
    if (!header) {
      if (!/^#EXTM3U\b/i.test(line))
        return {
          ok: false,
          message: "content: not an extended M3U playlist (the first line must be #EXTM3U)",
        };
      header = true;
      const attrs = parseAttributes(line.slice(7));
      tvgUrl = attrs["x-tvg-url"] ?? attrs["url-tvg"] ?? "";
      continue;
    }
    if (raw.length > MAX_LINE_CHARS) {
      problems.push({ line: lineNo, reason: `line longer than ${MAX_LINE_CHARS} characters` });
      if (!line.startsWith("#")) pending = freshPending();
      continue;
    }
    if (line.startsWith("#")) {
      const colon = line.indexOf(":");
      const tag = (colon === -1 ? line : line.slice(0, colon)).toUpperCase();
      const value = colon === -1 ? "" : line.slice(colon + 1);
      if (tag === "#EXTINF") {
        const info = parseExtinf(value);
        pending.attributes = info.attributes;
        pending.title = info.title;
      } else if (tag === "#EXTGRP") pending.extgrp = value.trim();
      else if (tag === "#EXTVLCOPT") setOption(pending.vlc, value, lineNo, problems);
      else if (tag === "#KODIPROP") setOption(pending.kodi, value, lineNo, problems);
      continue; // Other comments and tags are ignored (RFC 8216 4.1: unknown tags).
    }
    entries.push({ line: lineNo, url: line, ...pending });
    pending = freshPending();
  }
  if (!header)
    return { ok: false, message: "content: not an extended M3U playlist (no #EXTM3U line)" };
  return { ok: true, value: { tvgUrl, entries, problems } };
}

function freshPending() {
  return {
    title: "",
    attributes: {} as Record<string, string>,
    extgrp: "",
    vlc: {} as Record<string, string>,
    kodi: {} as Record<string, string>,
  };
}

function setOption(
  into: Record<string, string>,
  value: string,
  line: number,
  problems: { line: number; reason: string }[],
): void {
  const eq = value.indexOf("=");
  if (eq <= 0) {
    problems.push({ line, reason: "option without name=value" });
    return;
  }
  into[value.slice(0, eq).trim().toLowerCase()] = value.slice(eq + 1).trim();
}

/**
 * `#EXTINF:<duration> key="value" key2='v' key3=v,Title`. The title follows the first comma
 * outside quotes; values may be double-, single- or not quoted, and a title may hold commas.
 */
export function parseExtinf(value: string): { attributes: Record<string, string>; title: string } {
  let quote = "";
  let comma = -1;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (quote !== "") {
      if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") {
      // Only a quote that opens a value (after `=`) starts a quoted run; an apostrophe in a
      // bare word (`Children's`) does not.
      if (value[i - 1] === "=") quote = ch;
    } else if (ch === ",") {
      comma = i;
      break;
    }
  }
  const head = comma === -1 ? value : value.slice(0, comma);
  const title = comma === -1 ? "" : value.slice(comma + 1).trim();
  // The head starts with the duration (`-1`, `0`, `10.5`): attributes follow it.
  const attributes = parseAttributes(head.replace(/^\s*-?[0-9.]+/, ""));
  return { attributes, title };
}

/** `name="v"`, `name='v'` or `name=v` pairs, names lowercased; the last of a name wins. */
export function parseAttributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([A-Za-z0-9_:.-]+)\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s"']*))/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out[m[1]!.toLowerCase()] = (m[2] ?? m[3] ?? m[4] ?? "").trim();
  }
  return out;
}
