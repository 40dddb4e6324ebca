import type { StrictJson } from "./strict-json.js";
import { TextCursor } from "./text-cursor.js";

/**
 * A JSON string value handed on as the pieces it was decoded in (each up to 64 Ki characters,
 * never splitting a surrogate pair), not joined: joining the `content` of a 32 MiB import
 * into one string held the event loop for 0.1-0.15 s (issue 30 item 1).
 */
export class TextPieces {
  constructor(readonly pieces: readonly string[]) {}
}

export interface StrictJsonStepsOptions {
  /** Members of the top-level object whose string value comes back as {@link TextPieces}. */
  readonly pieceMembers?: ReadonlySet<string>;
}

/** Longest member name: a name is hashed whole (one synchronous pass), a value need not be. */
export const MAX_NAME_CHARS = 65_536;
/** Longest number (RFC 8259 9 lets a parser limit the range and precision of numbers). */
export const MAX_NUMBER_CHARS = 1_024;

/**
 * The checks of {@link parseStrictJson} (no key twice in an object, no lone surrogate, RFC 8259
 * grammar) as a parser that yields every few thousand characters, for bodies too large to
 * parse in one turn of the event loop: `JSON.parse` of a 32 MiB import body held it for
 * 300 ms, the checks after it as long again (issue 30 item 1). Driven by `runInSlices`.
 * Iterative, with its own stack: no nesting depth overflows it.
 *
 * The text comes as a string or as pieces (the body decoded chunk by chunk): the parser holds
 * a window of about two pieces and never the whole text. A long string value is built as a
 * rope (`+`, no copy) or, for a top-level member named in `pieceMembers`, handed on as
 * {@link TextPieces}, so no step is proportional to the whole body.
 */
export function* strictJsonSteps(
  text: string | Iterator<string>,
  options: StrictJsonStepsOptions = {},
): Generator<void, StrictJson> {
  const cur = new TextCursor(typeof text === "string" ? [text][Symbol.iterator]() : text);
  const pieceMembers = options.pieceMembers ?? new Set<string>();
  const stack: Frame[] = [];
  yield* skipSpace(cur);
  let work = 0;
  for (;;) {
    // Expecting a value at cur.i.
    let value: unknown;
    cur.need(1);
    const c = cur.code();
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      cur.i++;
      yield* skipSpace(cur);
      const frame: Frame =
        c === 0x7b
          ? { object: {}, keys: new Set(), key: "" }
          : { array: [] as unknown[], keys: undefined, key: "" };
      const close = c === 0x7b ? 0x7d : 0x5d;
      cur.need(1);
      if (cur.code() === close) {
        cur.i++;
        value = frame.object ?? frame.array;
      } else {
        stack.push(frame);
        const failed = yield* enterMember(cur, frame);
        if (failed !== undefined) return failed;
        continue;
      }
    } else if (c === 0x22 /* " */) {
      const s = yield* stringAt(cur);
      if (s === LONE) return loneSurrogate;
      if (s === undefined) return invalid;
      const frame = stack.at(-1);
      value =
        stack.length === 1 && frame?.object !== undefined && pieceMembers.has(frame.key)
          ? new TextPieces(s)
          : rope(s);
    } else {
      const scalar = scalarAt(cur);
      if (scalar === BAD) return invalid;
      if (scalar === LONG) return longNumber;
      value = scalar;
    }
    // A value is complete: store it in its container and close what it completes.
    for (;;) {
      if (++work % 1024 === 0) yield;
      yield* skipSpace(cur);
      const frame = stack.at(-1);
      if (frame === undefined) return cur.need(1) ? invalid : { ok: true, value };
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
      cur.need(1);
      const next = cur.code();
      if (next === 0x2c /* , */) {
        cur.i++;
        yield* skipSpace(cur);
        const failed = yield* enterMember(cur, frame);
        if (failed !== undefined) return failed;
        break;
      }
      if (next !== (frame.array !== undefined ? 0x5d : 0x7d)) return invalid;
      stack.pop();
      value = frame.object ?? frame.array;
      cur.i++;
    }
  }
}

type Frame =
  | { object: Record<string, unknown>; array?: undefined; keys: Set<string>; key: string }
  | { object?: undefined; array: unknown[]; keys: undefined; key: string };

const LONE = Symbol("lone surrogate");
const BAD = Symbol("not JSON");
const LONG = Symbol("number too long");
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LONE_SURROGATE = /\p{Cs}/u;
const invalid: StrictJson = { ok: false, message: "request body is not valid JSON" };
const loneSurrogate: StrictJson = {
  ok: false,
  message: "request body holds a lone UTF-16 surrogate",
};
const longNumber: StrictJson = {
  ok: false,
  message: `request body holds a number longer than ${MAX_NUMBER_CHARS} characters`,
};
const longName: StrictJson = {
  ok: false,
  message: `request body holds a member name longer than ${MAX_NAME_CHARS} characters`,
};
const keyTwice = (name: string): StrictJson => ({
  ok: false,
  message: `request body names the key ${JSON.stringify(name)} twice`,
});

/** The pieces as one string: a rope of them (each `+` links, copies nothing). */
function rope(pieces: readonly string[]): string {
  let s = "";
  for (const piece of pieces) s += piece;
  return s;
}

/** RFC 8259 2: space, tab, line feed, carriage return. */
const SPACE = /[ \t\n\r]*/y;

/** Past white space, a piece per step (a run of it can be megabytes). */
function* skipSpace(cur: TextCursor): Generator<void, void> {
  for (;;) {
    SPACE.lastIndex = cur.i;
    SPACE.test(cur.buf);
    cur.i = SPACE.lastIndex;
    if (cur.i < cur.buf.length || !cur.need(1)) return;
    yield;
  }
}

/** A number, `true`, `false` or `null` at cur.i (consumed), or why not. */
function scalarAt(cur: TextCursor): unknown {
  // The longest number allowed and one character more, so that its end is seen.
  cur.need(MAX_NUMBER_CHARS + 1);
  NUMBER.lastIndex = cur.i;
  const m = NUMBER.exec(cur.buf);
  if (m !== null) {
    if (m[0].length > MAX_NUMBER_CHARS) return LONG;
    cur.i += m[0].length;
    return Number(m[0]);
  }
  for (const [word, value] of WORDS) {
    if (cur.buf.startsWith(word, cur.i)) {
      cur.i += word.length;
      return value;
    }
  }
  return BAD;
}

const WORDS = [
  ["true", true],
  ["false", false],
  ["null", null],
] as const;

/**
 * An object frame's next member name at cur.i, kept as the frame's key, with cur.i after its
 * colon; the failure when there is none. An array frame has no names.
 */
function* enterMember(cur: TextCursor, frame: Frame): Generator<void, StrictJson | undefined> {
  if (frame.keys === undefined) return undefined;
  cur.need(1);
  const s = cur.code() === 0x22 ? yield* stringAt(cur) : undefined;
  if (s === LONE) return loneSurrogate;
  if (s === undefined) return invalid;
  if (s.reduce((n, piece) => n + piece.length, 0) > MAX_NAME_CHARS) return longName;
  const name = s.join("");
  yield* skipSpace(cur);
  cur.need(1);
  if (cur.code() !== 0x3a) return invalid;
  cur.i++;
  if (frame.keys.has(name)) return keyTwice(name);
  frame.keys.add(name);
  frame.key = name;
  yield* skipSpace(cur);
  return undefined;
}

/**
 * The JSON string starting at the quote at cur.i, as its decoded pieces; undefined when
 * malformed, LONE when it holds a lone surrogate. It is cut into segments of up to 64 Ki
 * characters, never inside an escape, and each segment is decoded by `JSON.parse` (which
 * also refuses raw control characters and bad escapes), one step each: few large pieces, not
 * one per escape, so the garbage of a 32 MiB playlist's half million escaped line ends does
 * not make a long collector pause. A high surrogate that ends a segment is carried to the
 * next one, so every piece is checked for lone surrogates on its own and no piece splits a
 * pair (two escapes, or a raw and an escaped half).
 */
function* stringAt(cur: TextCursor): Generator<void, string[] | undefined | typeof LONE> {
  const pieces: string[] = [];
  let carried = "";
  cur.i++;
  for (;;) {
    // Seven characters ahead (a `\uXXXX` escape and the character after it) unless the text
    // ends first: the segment stops short of the window's end, so no escape is cut.
    const whole = !cur.need(7);
    const text = cur.buf;
    const j = cur.i;
    const limit = Math.min(j + 65_536, whole ? text.length : text.length - 6);
    let k = j;
    while (k < limit) {
      const c = text.charCodeAt(k);
      if (c === 0x22) break;
      k += c !== 0x5c ? 1 : text.charCodeAt(k + 1) === 0x75 /* u */ ? 6 : 2;
    }
    if (k > j) {
      let piece: string;
      try {
        piece = carried + (JSON.parse(`"${text.slice(j, k)}"`) as string);
      } catch {
        return undefined; // a raw control character, a bad escape, an escape cut by the end
      }
      const last = piece.charCodeAt(piece.length - 1);
      carried = last >= 0xd800 && last <= 0xdbff ? piece.slice(-1) : "";
      if (carried !== "") piece = piece.slice(0, -1);
      // JSON.parse takes a lone surrogate (`\ud800`); in `u` mode a pair is one code point.
      if (LONE_SURROGATE.test(piece)) return LONE;
      if (piece !== "") pieces.push(piece);
      cur.i = k;
    }
    if (cur.i >= text.length && whole) return undefined;
    if (cur.i < text.length && text.charCodeAt(cur.i) === 0x22) break;
    yield;
  }
  cur.i++;
  if (carried !== "") return LONE;
  return pieces;
}
