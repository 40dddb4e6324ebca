import { raise } from "./parse-result.js";

/**
 * Bounds-checked big-endian reader over `buf[start, end)`.
 *
 * Every accessor checks the remaining length first and raises a
 * BoxParseError naming `box`, so a hostile count can never read past the box.
 * Only use inside a `guard()`ed computation.
 */
export class ByteReader {
  readonly buf: Buffer;
  readonly end: number;
  readonly box: string;
  pos: number;

  constructor(buf: Buffer, start: number, end: number, box: string) {
    if (start < 0 || end > buf.length || start > end)
      raise(box, `invalid range ${start}..${end} in ${buf.length} bytes`);
    this.buf = buf;
    this.pos = start;
    this.end = end;
    this.box = box;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Raises unless at least `n` bytes remain. */
  need(n: number, what: string): void {
    if (!Number.isSafeInteger(n) || n < 0 || n > this.end - this.pos) {
      raise(this.box, `truncated: ${what} needs ${n} bytes, ${this.end - this.pos} left`);
    }
  }

  u8(what = "u8"): number {
    this.need(1, what);
    return this.buf[this.pos++] as number;
  }

  u16(what = "u16"): number {
    this.need(2, what);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  u24(what = "u24"): number {
    this.need(3, what);
    const v = this.buf.readUIntBE(this.pos, 3);
    this.pos += 3;
    return v;
  }

  u32(what = "u32"): number {
    this.need(4, what);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  i32(what = "i32"): number {
    this.need(4, what);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  u64(what = "u64"): bigint {
    this.need(8, what);
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  /** A 64-bit field that must fit in a JS safe integer (sizes, offsets). */
  u64n(what = "u64"): number {
    const v = this.u64(what);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) raise(this.box, `${what} ${v} too large`);
    return Number(v);
  }

  fourcc(what = "fourcc"): string {
    this.need(4, what);
    const s = this.buf.toString("latin1", this.pos, this.pos + 4);
    this.pos += 4;
    return s;
  }

  /** A view (no copy) of the next `n` bytes. */
  bytes(n: number, what = "bytes"): Buffer {
    this.need(n, what);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  skip(n: number, what = "skip"): void {
    this.need(n, what);
    this.pos += n;
  }
}
