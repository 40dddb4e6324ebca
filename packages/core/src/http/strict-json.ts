import { type AnyNode, iterator, parse } from "@humanwhocodes/momoa";

/** A request body read as strict JSON, or why it is not. */
export type StrictJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Parses a JSON request body without the silent repairs of `JSON.parse` over
 * `Request.text()`:
 * - bytes that are not UTF-8 (RFC 8259 8.1) are refused, not replaced with U+FFFD;
 * - an object naming a member twice is refused, not read last-wins (RFC 8259 4
 *   leaves the outcome to the parser; a gateway storing credentials must not pick one);
 * - a string holding a lone surrogate (`"\ud800"`) is refused: stored, it would
 *   come back as U+FFFD.
 *
 * `@humanwhocodes/momoa` gives the syntax tree the checks walk; the value itself
 * comes from `JSON.parse`, which creates `__proto__` as a plain own member.
 *
 * @example
 * parseStrictJson(Buffer.from('{"a":1,"a":2}')) // { ok: false, message: 'duplicate key "a"' }
 */
export function parseStrictJson(bytes: Uint8Array): StrictJson {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, message: "request body is not valid UTF-8" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: "request body is not valid JSON" };
  }
  // Fast path: JSON.parse drops a repeated member, so as many member names in the text as
  // keys in the value, and no lone surrogate in any string, means the body passes. momoa's
  // tree of an 8 MiB M3U import body was the largest part of its preview (--cpu-prof), so it
  // is built only to name what is wrong.
  try {
    if (memberNames(text) === keysAndSurrogates(value)) return { ok: true, value };
  } catch {
    // Nesting deeper than the stack: momoa below refuses it as invalid JSON.
  }
  let tree: ReturnType<typeof parse>;
  try {
    tree = parse(text, { mode: "json" });
  } catch {
    return { ok: false, message: "request body is not valid JSON" };
  }
  for (const step of iterator(tree)) {
    if (step.phase !== "enter") continue;
    const node = step.node as AnyNode;
    // In `u` mode a paired surrogate is one code point; \p{Cs} matches only a lone half.
    if (node.type === "String" && LONE_SURROGATE.test(node.value)) {
      return { ok: false, message: "request body holds a lone UTF-16 surrogate" };
    }
    if (node.type === "Object") {
      const seen = new Set<string>();
      for (const member of node.members) {
        const name = member.name.type === "String" ? member.name.value : member.name.name;
        if (seen.has(name)) {
          return { ok: false, message: `request body names the key ${JSON.stringify(name)} twice` };
        }
        seen.add(name);
      }
    }
  }
  return { ok: true, value };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
/** RFC 8259 2: space, tab, line feed, carriage return. */
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Counts the member names of a text JSON.parse accepted: strings followed by `:`. In valid
 * JSON every `"` outside a string opens one, and `\` inside a string escapes one character.
 */
function memberNames(text: string): number {
  let names = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== QUOTE) continue;
    for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++)
      if (text.charCodeAt(i) === BACKSLASH) i++;
    let j = i + 1;
    while (j < text.length && JSON_SPACE.has(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) === COLON) names++;
  }
  return names;
}

/** The keys of every object in `value`, or -1 when a string or key holds a lone surrogate. */
function keysAndSurrogates(value: unknown): number {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? -1 : 0;
  if (typeof value !== "object" || value === null) return 0;
  let keys = 0;
  const entries = Array.isArray(value) ? value.map((v) => ["", v] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    if (!Array.isArray(value)) {
      if (LONE_SURROGATE.test(key)) return -1;
      keys++;
    }
    const inner = keysAndSurrogates(item);
    if (inner < 0) return -1;
    keys += inner;
  }
  return keys;
}
