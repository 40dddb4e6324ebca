import { ByteReader } from "./byte-reader.js";
import { guard, type Result, raise } from "./parse-result.js";

/** Location of one box inside a buffer. `end` is exclusive. */
export interface BoxHeader {
  /** Four-character type, e.g. `moof`. */
  type: string;
  /** Offset of the first size byte. */
  start: number;
  /** Size of the header: 8, 16 (64-bit size), +16 for `uuid`. */
  headerSize: number;
  /** Offset just past the box. */
  end: number;
  /** Extended type of a `uuid` box as 32 lowercase hex digits. */
  userType?: string;
}

/** Version and flags of a FullBox (ISO/IEC 14496-12 §4.2). */
export interface FullBoxHeader {
  version: number;
  flags: number;
  /** Offset of the first byte after version/flags. */
  bodyStart: number;
}

/** Outcome of peeking at a box header that may not be complete yet (streaming). */
export type HeaderPeek =
  | { kind: "need-more" }
  | {
      kind: "header";
      type: string;
      headerSize: number /** total size; `null` = size 0, box runs to the end of the input */;
      size: number | null;
    }
  | { kind: "invalid"; message: string };

/** First byte of a box's payload. */
export function payloadStart(box: BoxHeader): number {
  return box.start + box.headerSize;
}

/**
 * Reads the header at `offset` without requiring the body to be present.
 * ISO/IEC 14496-12 §4.2: size 1 means a 64-bit `largesize` follows, size 0 means "to end of file".
 */
export function peekBoxHeader(buf: Buffer, offset: number): HeaderPeek {
  if (buf.length - offset < 8) return { kind: "need-more" };
  const size32 = buf.readUInt32BE(offset);
  const type = buf.toString("latin1", offset + 4, offset + 8);
  let headerSize = 8;
  let size: number | null = size32;
  if (size32 === 1) {
    if (buf.length - offset < 16) return { kind: "need-more" };
    const big = buf.readBigUInt64BE(offset + 8);
    if (big > BigInt(Number.MAX_SAFE_INTEGER))
      return { kind: "invalid", message: `${type} largesize ${big} too large` };
    size = Number(big);
    headerSize = 16;
  } else if (size32 === 0) {
    size = null;
  }
  if (type === "uuid") {
    headerSize += 16;
    if (buf.length - offset < headerSize) return { kind: "need-more" };
  }
  if (size !== null && size < headerSize)
    return { kind: "invalid", message: `${type} size ${size} smaller than its header` };
  return { kind: "header", type, headerSize, size };
}

/** Reads the box header at `offset`; the box must end at or before `limit`. Raises on failure. */
export function boxAt(buf: Buffer, offset: number, limit: number, parent: string): BoxHeader {
  const view = limit === buf.length ? buf : buf.subarray(0, limit);
  const peek = peekBoxHeader(view, offset);
  if (peek.kind === "need-more") raise(parent, `truncated box header at ${offset}`);
  if (peek.kind === "invalid") raise(parent, peek.message);
  const end = peek.size === null ? limit : offset + peek.size;
  if (end > limit)
    raise(
      peek.type,
      `box at ${offset} (size ${end - offset}) overruns its container ending at ${limit}`,
    );
  const header: BoxHeader = { type: peek.type, start: offset, headerSize: peek.headerSize, end };
  if (peek.type === "uuid")
    header.userType = buf.toString("hex", offset + peek.headerSize - 16, offset + peek.headerSize);
  return header;
}

/** Lists the boxes that exactly tile `buf[start, end)`. Raises on failure. */
export function boxesIn(buf: Buffer, start: number, end: number, parent: string): BoxHeader[] {
  if (start < 0 || end > buf.length || start > end)
    raise(parent, `invalid child range ${start}..${end}`);
  const out: BoxHeader[] = [];
  let pos = start;
  while (pos < end) {
    const box = boxAt(buf, pos, end, parent);
    out.push(box);
    pos = box.end;
  }
  return out;
}

/** Reads version and flags of a FullBox. Raises if the box is too small. */
export function fullBoxAt(buf: Buffer, box: BoxHeader): FullBoxHeader {
  const r = new ByteReader(buf, payloadStart(box), box.end, box.type);
  const version = r.u8("version");
  const flags = r.u24("flags");
  return { version, flags, bodyStart: r.pos };
}

/**
 * Iterates the top-level boxes of `buf[start, end)` (default: the whole buffer).
 *
 * @example
 * const r = listBoxes(segment);
 * if (r.ok) for (const b of r.value) console.log(b.type, b.end - b.start);
 */
export function listBoxes(buf: Buffer, start = 0, end = buf.length): Result<BoxHeader[]> {
  return guard("file", () => boxesIn(buf, start, end, "file"));
}

/** Version and flags of a FullBox as a result value. */
export function readFullBox(buf: Buffer, box: BoxHeader): Result<FullBoxHeader> {
  return guard(box.type, () => fullBoxAt(buf, box));
}

/** First child of `list` with the given type. */
export function findBox(list: readonly BoxHeader[], type: string): BoxHeader | undefined {
  return list.find((b) => b.type === type);
}

/** Every child of `list` with the given type. */
export function filterBoxes(list: readonly BoxHeader[], type: string): BoxHeader[] {
  return list.filter((b) => b.type === type);
}
