import { createDecipheriv, type Decipher } from "node:crypto";

const TWO_64 = 1n << 64n;
const EMPTY = Buffer.alloc(0);

/** ISO/IEC 23001-7 §9.1: an 8-byte IV is the high half of the 16-byte counter block; the low half starts at zero. */
export function counterBlock(iv: Buffer): Buffer {
  if (iv.length === 16) return iv;
  const out = Buffer.alloc(16);
  iv.copy(out, 0, 0, Math.min(8, iv.length));
  return out;
}

/**
 * Native AES-CTR keystream whose block counter is the low 64 bits of the counter block
 * (ISO/IEC 23001-7 §10.1: the counter wraps within 64 bits, the IV half never carries).
 * OpenSSL increments all 128 bits, so the decipher is restarted at the wrap point.
 */
export class Ctr64 {
  private d: Decipher;
  private untilWrap: number;
  private readonly key: Buffer;
  private readonly high: Buffer;

  constructor(key: Buffer, counter: Buffer) {
    this.key = key;
    this.d = createDecipheriv("aes-128-ctr", key, counter);
    // A sample is far below 2^32 blocks, so only a low half starting at 0xffffffff........ can wrap.
    if (counter.readUInt32BE(8) !== 0xffffffff) {
      this.untilWrap = Number.POSITIVE_INFINITY;
      this.high = EMPTY;
    } else {
      const blocks = TWO_64 - counter.readBigUInt64BE(8);
      this.untilWrap = Number(blocks * 16n);
      // Copied: callers may reuse `counter` for the next sample.
      this.high = Buffer.from(counter.subarray(0, 8));
    }
  }

  /** Decrypts the next `src.length` bytes of the keystream into a fresh buffer. */
  update(src: Buffer): Buffer {
    if (src.length <= this.untilWrap) {
      this.untilWrap -= src.length;
      return this.d.update(src);
    }
    const first = this.untilWrap;
    const head = this.d.update(src.subarray(0, first));
    const restart = Buffer.alloc(16);
    this.high.copy(restart, 0);
    this.d = createDecipheriv("aes-128-ctr", this.key, restart);
    this.untilWrap = Number.POSITIVE_INFINITY;
    return Buffer.concat([head, this.d.update(src.subarray(first))]);
  }
}
