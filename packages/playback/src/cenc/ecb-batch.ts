import { type Cipher, createCipheriv, createDecipheriv, type Decipher } from "node:crypto";

/** Work kinds of an {@link EcbBatch}. */
export type BatchMode = "ctr" | "cbc";

// ECB has no state between whole-block updates and all work here is synchronous,
// so one cipher per key and direction serves every stream.
const encryptors = new WeakMap<Buffer, Cipher>();
const decryptors = new WeakMap<Buffer, Decipher>();

function ecb(key: Buffer, mode: BatchMode): Cipher | Decipher {
  const cache = mode === "ctr" ? encryptors : decryptors;
  let c = cache.get(key);
  if (!c) {
    c =
      mode === "ctr"
        ? createCipheriv("aes-128-ecb", key, null)
        : createDecipheriv("aes-128-ecb", key, null);
    c.setAutoPadding(false);
    cache.set(key, c);
  }
  return c;
}

/** The 16-byte counter block `block` as four big-endian 32-bit words, for {@link EcbBatch.addCtr}. */
export function counterWords(block: Buffer, into: Uint32Array): void {
  for (let i = 0; i < 4; i++) into[i] = block.readUInt32BE(4 * i);
}

function view(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.length);
}

const EMPTY = Buffer.alloc(0);
const EMPTY_VIEW = view(EMPTY);

/**
 * AES work for many short pieces (small CTR samples, pattern blocks), done with one
 * ECB call per batch instead of one native cipher per sample or subsample:
 *
 * - `ctr`: counter blocks are laid out and encrypted; the keystream is XORed onto the input
 *   (ISO/IEC 23001-7 §10.1 and §10.3, with the counter wrapping in its low 64 bits);
 * - `cbc`: ciphertext blocks are gathered and decrypted; each is XORed with its predecessor
 *   in the chain, or the IV, which sits just before it in the gathered input (§10.2, §10.4).
 *
 * Jobs are `[pos, len, ks]` triples: output bytes `target[offset + pos, … + len)` come from
 * the ECB output at `ks`. Bytes move four at a time through DataViews, which V8 compiles
 * to plain loads and stores; a byte loop or a native copy per 16-byte block is several
 * times slower.
 */
export class EcbBatch {
  private input = Buffer.allocUnsafe(16 * 1024);
  private inputView = view(this.input);
  private used = 0;
  private readonly jobs: number[] = [];
  private count = 0;
  private key: Buffer | null = null;
  private mode: BatchMode = "ctr";
  private lastChain = -1;
  private src: Buffer = EMPTY;
  private srcView = EMPTY_VIEW;

  /** Bytes gathered so far. */
  get bytes(): number {
    return this.used;
  }

  /** Whether a job for `key`/`mode` can join this batch without running it first. */
  accepts(key: Buffer, mode: BatchMode): boolean {
    return this.count === 0 || (this.key === key && this.mode === mode);
  }

  /**
   * Queues CTR decryption of `len` bytes at `pos`, which sit `ksPos` bytes into the
   * keystream of a counter block given as four big-endian 32-bit words (see {@link counterWords}).
   */
  addCtr(key: Buffer, pos: number, len: number, counter: Uint32Array, ksPos: number): void {
    this.key = key;
    this.mode = "ctr";
    this.lastChain = -1;
    const first = Math.floor(ksPos / 16);
    const skip = ksPos - first * 16;
    const blocks = Math.ceil((skip + len) / 16);
    const base = this.reserve(blocks * 16);
    const v = this.inputView;
    const h0 = counter[0] as number;
    const h1 = counter[1] as number;
    const hi = counter[2] as number;
    const lo = (counter[3] as number) + first;
    for (let b = 0, q = base; b < blocks; b++, q += 16) {
      const low = lo + b;
      v.setUint32(q, h0);
      v.setUint32(q + 4, h1);
      // §10.1: the block counter is the low 64 bits and wraps there.
      v.setUint32(q + 8, (hi + Math.floor(low / 0x100000000)) >>> 0);
      v.setUint32(q + 12, low >>> 0);
    }
    this.push(pos, len, base + skip);
  }

  /**
   * Queues CBC decryption of the whole blocks `src[from, from + len)`, which land at `pos`.
   * `prev[prevAt, prevAt + 16)` is the chain's previous ciphertext block (or its IV); it is
   * only read when the last job of this batch belongs to another `chain`.
   */
  addCbc(
    key: Buffer,
    pos: number,
    src: Buffer,
    from: number,
    len: number,
    prev: Buffer,
    prevAt: number,
    chain: number,
  ): void {
    this.key = key;
    this.mode = "cbc";
    const linked = this.lastChain === chain;
    let q = this.reserve(linked ? len : len + 16);
    const v = this.inputView;
    if (!linked) {
      const input = this.input;
      for (let k = 0; k < 16; k++) input[q + k] = prev[prevAt + k] as number;
      q += 16;
    }
    if (len <= 64) {
      const sv = this.viewOf(src);
      for (let k = 0; k < len; k += 4) v.setInt32(q + k, sv.getInt32(from + k, true), true);
    } else {
      src.copy(this.input, q, from, from + len);
    }
    this.lastChain = chain;
    this.push(pos, len, q);
  }

  /** Runs the queued work: reads CTR input from `src`, writes `target[offset + pos]`. */
  run(src: Buffer, target: Buffer, offset: number): void {
    if (this.count === 0) return;
    const out = ecb(this.key as Buffer, this.mode).update(this.input.subarray(0, this.used));
    const ov = view(out);
    const tv = view(target);
    const jobs = this.jobs;
    if (this.mode === "ctr") {
      const sv = this.viewOf(src);
      for (let j = 0; j < this.count; j += 3) {
        const pos = jobs[j] as number;
        const len = jobs[j + 1] as number;
        const ks = jobs[j + 2] as number;
        const t = offset + pos;
        const whole = len - (len % 4);
        let k = 0;
        for (; k < whole; k += 4)
          tv.setInt32(t + k, sv.getInt32(pos + k, true) ^ ov.getInt32(ks + k, true), true);
        for (; k < len; k++) target[t + k] = (src[pos + k] as number) ^ (out[ks + k] as number);
      }
    } else {
      const iv = this.inputView;
      for (let j = 0; j < this.count; j += 3) {
        const len = jobs[j + 1] as number;
        const ks = jobs[j + 2] as number;
        const t = offset + (jobs[j] as number);
        const p = ks - 16;
        for (let k = 0; k < len; k += 4)
          tv.setInt32(t + k, ov.getInt32(ks + k, true) ^ iv.getInt32(p + k, true), true);
      }
    }
    this.used = 0;
    this.count = 0;
    this.lastChain = -1;
    this.key = null;
    this.src = EMPTY;
    this.srcView = EMPTY_VIEW;
  }

  /** A DataView of `b`, cached for the slice being decrypted. */
  private viewOf(b: Buffer): DataView {
    if (b !== this.src) {
      this.src = b;
      this.srcView = view(b);
    }
    return this.srcView;
  }

  private reserve(n: number): number {
    const at = this.used;
    if (at + n > this.input.length) {
      const grown = Buffer.allocUnsafe(Math.max(at + n, this.input.length * 2));
      this.input.copy(grown, 0, 0, at);
      this.input = grown;
      this.inputView = view(grown);
    }
    this.used = at + n;
    return at;
  }

  private push(pos: number, len: number, ks: number): void {
    const jobs = this.jobs;
    const i = this.count;
    jobs[i] = pos;
    jobs[i + 1] = len;
    jobs[i + 2] = ks;
    this.count = i + 3;
  }
}
