import type { StrictJson } from "./strict-json.js";

/**
 * The checks of {@link parseStrictJson} (no key twice in an object, no lone surrogate, RFC 8259
 * grammar) as a parser that yields every few thousand characters, for bodies too large to
 * parse in one turn of the event loop: `JSON.parse` of a 32 MiB import body held it for
 * 300 ms, the checks after it as long again (issue 30 item 1). Driven by `runInSlices`.
 * Iterative, with its own stack: no nesting depth overflows it.
 */
export function* strictJsonSteps(text: string): Generator<void, StrictJson> {
  const n = text.length;
  const stack: Frame[] = [];
  let i = skipSpace(text, 0);
  let work = 0;
  for (;;) {
    // Expecting a value at i.
    let value: unknown;
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      i = skipSpace(text, i + 1);
      const frame: Frame =
        c === 0x7b
          ? { object: {}, keys: new Set(), key: "" }
          : { array: [] as unknown[], keys: undefined, key: "" };
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(i) === close) {
        i++;
        value = frame.object ?? frame.array;
      } else {
        stack.push(frame);
        const at = yield* enterMember(text, i, frame);
        if (typeof at !== "number") return at;
        i = at;
        continue;
      }
    } else if (c === 0x22 /* " */) {
      const s = yield* stringAt(text, i);
      if (s === LONE) return loneSurrogate;
      if (s === undefined) return invalid;
      value = s.value;
      i = s.end;
    } else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m !== null) {
        value = Number(m[0]);
        i += m[0].length;
      } else if (text.startsWith("true", i)) {
        value = true;
        i += 4;
      } else if (text.startsWith("false", i)) {
        value = false;
        i += 5;
      } else if (text.startsWith("null", i)) {
        value = null;
        i += 4;
      } else return invalid;
    }
    // A value is complete: store it in its container and close what it completes.
    for (;;) {
      if (++work % 1024 === 0) yield;
      i = skipSpace(text, i);
      const frame = stack.at(-1);
      if (frame === undefined) return i === n ? { ok: true, value } : invalid;
      if (frame.array !== undefined) frame.array.push(value);
      else if (frame.key === "__proto__")
        // JSON.parse makes `__proto__` a plain own member; assignment would set the prototype.
        Object.defineProperty(frame.object, "__proto__", {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      else frame.object[frame.key] = value;
      const next = text.charCodeAt(i);
      if (next === 0x2c /* , */) {
        const at = yield* enterMember(text, skipSpace(text, i + 1), frame);
        if (typeof at !== "number") return at;
        i = at;
        break;
      }
      if (next !== (frame.array !== undefined ? 0x5d : 0x7d)) return invalid;
      stack.pop();
      value = frame.object ?? frame.array;
      i++;
    }
  }
}

type Frame =
  | { object: Record<string, unknown>; array?: undefined; keys: Set<string>; key: string }
  | { object?: undefined; array: unknown[]; keys: undefined; key: string };

const LONE = Symbol("lone surrogate");
const BAD = Symbol("not JSON");
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LONE_SURROGATE = /\p{Cs}/u;
const invalid: StrictJson = { ok: false, message: "request body is not valid JSON" };
const loneSurrogate: StrictJson = {
  ok: false,
  message: "request body holds a lone UTF-16 surrogate",
};
const keyTwice = (name: string): StrictJson => ({
  ok: false,
  message: `request body names the key ${JSON.stringify(name)} twice`,
});

/** RFC 8259 2: space, tab, line feed, carriage return. */
const SPACE = /[ \t\n\r]*/y;

function skipSpace(text: string, from: number): number {
  SPACE.lastIndex = from;
  SPACE.test(text);
  return SPACE.lastIndex;
}

/**
 * An object frame's next member name at i, kept as the frame's key: the position after its
 * colon, or the failure. An array frame has no names: i itself.
 */
function* enterMember(text: string, i: number, frame: Frame): Generator<void, number | StrictJson> {
  if (frame.keys === undefined) return i;
  const key = yield* memberName(text, i, frame.keys);
  if (key === BAD) return invalid;
  if (key === LONE) return loneSurrogate;
  if ("twice" in key) return keyTwice(key.twice);
  frame.key = key.name;
  return key.end;
}

/** `"name" :` at i, new in its object; the position after the colon. */
function* memberName(
  text: string,
  i: number,
  keys: Set<string>,
): Generator<void, { name: string; end: number } | { twice: string } | typeof LONE | typeof BAD> {
  const s = text.charCodeAt(i) === 0x22 ? yield* stringAt(text, i) : undefined;
  if (s === LONE) return LONE;
  if (s === undefined) return BAD;
  const colon = skipSpace(text, s.end);
  if (text.charCodeAt(colon) !== 0x3a) return BAD;
  if (keys.has(s.value)) return { twice: s.value };
  keys.add(s.value);
  return { name: s.value, end: skipSpace(text, colon + 1) };
}

/**
 * The JSON string starting at the quote at i; undefined when malformed, LONE when it holds a
 * lone surrogate. It is cut into segments of up to 64 Ki characters, never inside an escape,
 * and each segment is decoded by `JSON.parse` (which also refuses raw control characters and
 * bad escapes), one step each: few large pieces, not one per escape, so the garbage of a
 * 32 MiB playlist's half million escaped line ends does not make a long collector pause.
 */
function* stringAt(
  text: string,
  i: number,
): Generator<void, { value: string; end: number } | undefined | typeof LONE> {
  const pieces: string[] = [];
  let j = i + 1;
  for (;;) {
    // The segment ends at the closing quote, or at the first escape boundary past 64 Ki.
    const limit = Math.min(j + 65_536, text.length);
    let k = j;
    while (k < limit) {
      const c = text.charCodeAt(k);
      if (c === 0x22) break;
      k += c !== 0x5c ? 1 : text.charCodeAt(k + 1) === 0x75 /* u */ ? 6 : 2;
    }
    if (k > j) {
      try {
        pieces.push(JSON.parse(`"${text.slice(j, k)}"`) as string);
      } catch {
        return undefined; // a raw control character, a bad escape, an escape cut by the end
      }
      j = k;
    }
    if (j >= text.length) return undefined;
    if (text.charCodeAt(j) === 0x22) break;
    yield;
  }
  const value = pieces.length === 1 ? pieces[0]! : pieces.join("");
  // JSON.parse takes a lone surrogate (`\ud800`); checked on the whole value, a window at a
  // time, never cutting a pair (two escapes, or a raw and an escaped half) in two.
  for (let a = 0; a < value.length; ) {
    let b = Math.min(a + 65_536, value.length);
    const last = value.charCodeAt(b - 1);
    if (last >= 0xd800 && last <= 0xdbff && b < value.length) b++;
    if (LONE_SURROGATE.test(value.slice(a, b))) return LONE;
    a = b;
    if (b < value.length) yield;
  }
  return { value, end: j + 1 };
}
