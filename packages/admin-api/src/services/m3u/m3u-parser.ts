/**
 * An extended M3U parser for IPTV playlists (the `#EXTM3U` dialect players and panels write:
 * `#EXTINF` attributes, `#EXTGRP`, `#EXTVLCOPT`, `#KODIPROP`). It walks the text line by line
 * without splitting it into an array, so a 40,000-entry playlist costs one pass and the
 * entries. It never throws: a line it cannot read becomes a skipped entry with a reason.
 */

import { runToEnd } from "@svc/core/time-slices";
import { m3uLines } from "./m3u-lines.js";

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
const tooLongReason = `line longer than ${MAX_LINE_CHARS} characters`;

export type ParseResult = { ok: true; value: M3uDocument } | { ok: false; message: string };

/**
 * @example
 * const r = parseM3u('#EXTM3U\n#EXTINF:-1 tvg-id="a" group-title="News",A\nhttp://x/a.m3u8\n');
 * r.ok && r.value.entries[0]!.attributes["group-title"] // "News"
 */
export function parseM3u(text: string): ParseResult {
  return runToEnd(m3uSteps(text));
}

/**
 * {@link parseM3u} as steps, yielding every few hundred lines and after each piece: the walk
 * over a 32 MiB playlist is a second of CPU, run in slices (`runInSlices`) so the event loop
 * keeps turning. The text may come as the pieces it was decoded in (the import's `content`),
 * read line by line without joining them (issue 30 item 1).
 */
export function* m3uSteps(text: string | Iterable<string>): Generator<void, ParseResult> {
  let lineNo = 0;
  let header = false;
  let tvgUrl = "";
  const entries: M3uEntry[] = [];
  const problems: { line: number; reason: string }[] = [];
  let pending = freshPending();
  for (const raw of m3uLines(typeof text === "string" ? [text] : text, MAX_LINE_CHARS)) {
    if (raw === undefined) {
      yield;
      continue;
    }
    if (lineNo % 256 === 0) yield;
    lineNo++;
    const tooLong = typeof raw !== "string";
    // Of a line over the limit only its start is known: enough to tell a directive.
    const line = tooLong ? raw.head : raw.trim();
    if (line === "") continue;
    if (!header) {
      if (!/^#EXTM3U\b/i.test(line))
        return {
          ok: false,
          message: "content: not an extended M3U playlist (the first line must be #EXTM3U)",
        };
      header = true;
      // The header is under the same line limit: a 1 MiB `#EXTM3U` line is a hostile file's,
      // so its attributes are dropped (reported) and the entries after it still read.
      if (tooLong) problems.push({ line: lineNo, reason: tooLongReason });
      else {
        const attrs = parseAttributes(line.slice(7));
        tvgUrl = attrs["x-tvg-url"] ?? attrs["url-tvg"] ?? "";
      }
      continue;
    }
    if (tooLong) {
      problems.push({ line: lineNo, reason: tooLongReason });
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

/**
 * `name="v"`, `name='v'` or `name=v` pairs, names lowercased; the last of a name wins. A quote
 * left open runs to the end of the text; text that is no pair is passed over.
 *
 * One forward pass: the regular expression this replaces retried its name run from every
 * character of a long `aaaa…` run without `=`, quadratic in the line (40,000 characters took
 * 1.8 s, a 1 MiB line minutes of a blocked event loop; issue 30 item 1).
 */
export function parseAttributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isNameChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n && isNameChar(text.charCodeAt(i))) i++;
    const name = text.slice(nameStart, i);
    let j = skipSpaces(text, i);
    // A name run without `=` is no pair; no shorter run inside it is one either.
    if (text.charCodeAt(j) !== EQUALS) continue;
    j = skipSpaces(text, j + 1);
    const open = text.charCodeAt(j);
    let value: string;
    if (open === DOUBLE_QUOTE || open === SINGLE_QUOTE) {
      const close = text.indexOf(open === DOUBLE_QUOTE ? '"' : "'", j + 1);
      const end = close === -1 ? n : close;
      value = text.slice(j + 1, end);
      i = close === -1 ? n : close + 1;
    } else {
      let end = j;
      while (end < n && !endsBareValue(text.charCodeAt(end))) end++;
      value = text.slice(j, end);
      i = end;
    }
    out[name.toLowerCase()] = value.trim();
  }
  return out;
}

const EQUALS = 0x3d;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/** `[A-Za-z0-9_:.-]`: the characters of an attribute name. */
function isNameChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x3a) ||
    c === 0x5f ||
    c === 0x2e ||
    c === 0x2d
  );
}

/** What `\s` matches: ASCII and Unicode white space and line terminators. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c > 0x7f && /\s/.test(String.fromCharCode(c)));
}

function skipSpaces(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** A bare value ends at white space or a quote. */
function endsBareValue(c: number): boolean {
  return c === DOUBLE_QUOTE || c === SINGLE_QUOTE || isSpace(c);
}
