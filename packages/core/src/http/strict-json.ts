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
  let tree: ReturnType<typeof parse>;
  try {
    value = JSON.parse(text);
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
