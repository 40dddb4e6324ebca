import { createDecipheriv, type Decipher } from "node:crypto";
import { fail, type Result } from "../mp4/parse-result.js";

/** Protection schemes of ISO/IEC 23001-7 §10. */
export type CencScheme = "cenc" | "cens" | "cbc1" | "cbcs";

/** Everything needed to decrypt one sample. */
export interface SampleCipher {
  scheme: CencScheme;
  key: Buffer;
  /** Per-sample IV from `senc`/aux info, or the constant IV: 8 or 16 bytes. */
  iv: Buffer;
  /** Flattened subsample map `[clear0, protected0, clear1, protected1, ...]`, or null for whole-sample encryption. */
  subsamples: readonly number[] | null;
  cryptByteBlock: number;
  skipByteBlock: number;
}

const DONE: Result<void> = Object.freeze({ ok: true, value: undefined }) as Result<void>;
const TWO_64 = 1n << 64n;

// One growable scratch area for gathering pattern blocks; decryption is synchronous,
// so a module-level buffer is never used by two samples at once.
let scratch = Buffer.allocUnsafe(64 * 1024);
function scratchFor(n: number): Buffer {
  if (scratch.length < n) scratch = Buffer.allocUnsafe(Math.max(n, scratch.length * 2));
  return scratch;
}

/** ISO/IEC 23001-7 §9.1: an 8-byte IV is the high half of the 16-byte block; the low half starts at zero. */
function iv16(iv: Buffer): Buffer {
  if (iv.length === 16) return iv;
  const out = Buffer.alloc(16);
  iv.copy(out, 0, 0, Math.min(8, iv.length));
  return out;
}

/**
 * AES-CTR keystream whose block counter is the low 64 bits of the counter block
 * (ISO/IEC 23001-7 §10.1: the counter wraps within 64 bits, the IV half never carries).
 * OpenSSL increments all 128 bits, so the decipher is restarted at the wrap point.
 */
class Ctr64 {
  private d: Decipher;
  private untilWrap: number;
  private readonly key: Buffer;
  private readonly high: Buffer;

  constructor(key: Buffer, counter: Buffer) {
    this.key = key;
    this.high = counter.subarray(0, 8);
    this.d = createDecipheriv("aes-128-ctr", key, counter);
    // A sample is far below 2^32 blocks, so only a low half starting at 0xffffffff........ can wrap.
    if (counter.readUInt32BE(8) !== 0xffffffff) {
      this.untilWrap = Number.POSITIVE_INFINITY;
    } else {
      const blocks = TWO_64 - counter.readBigUInt64BE(8);
      this.untilWrap = Number(blocks * 16n);
    }
  }

  /** Decrypts `src` into `dst` at `at` (may alias `src`). */
  run(src: Buffer, dst: Buffer, at: number): void {
    if (src.length <= this.untilWrap) {
      this.untilWrap -= src.length;
      this.d.update(src).copy(dst, at);
      return;
    }
    const first = this.untilWrap;
    this.d.update(src.subarray(0, first)).copy(dst, at);
    const restart = Buffer.alloc(16);
    this.high.copy(restart, 0);
    this.d = createDecipheriv("aes-128-ctr", this.key, restart);
    this.untilWrap = Number.POSITIVE_INFINITY;
    this.d.update(src.subarray(first)).copy(dst, at + first);
  }
}

/**
 * Calls `visit(offset, length)` for each run of encrypted blocks inside one
 * protected range, following the crypt:skip pattern (ISO/IEC 23001-7 §9.6).
 * A pattern of 0:0 means every complete block. A trailing partial block is never encrypted;
 * a trailing run shorter than crypt_byte_block encrypts its complete blocks.
 */
export function forEachPatternRun(
  start: number,
  length: number,
  crypt: number,
  skip: number,
  visit: (offset: number, length: number) => void,
): void {
  if (crypt === 0 && skip !== 0) return;
  if (crypt === 0 || skip === 0) {
    const whole = length - (length % 16);
    if (whole > 0) visit(start, whole);
    return;
  }
  let pos = start;
  let rem = length;
  while (rem >= 16) {
    const n = Math.min(crypt * 16, rem - (rem % 16));
    visit(pos, n);
    pos += n;
    rem -= n;
    const s = Math.min(skip * 16, rem);
    pos += s;
    rem -= s;
  }
}

/** Protected ranges of a sample as flattened `[absStart, length, ...]`, or an error when the map overruns. */
function protectedRanges(
  start: number,
  size: number,
  subsamples: readonly number[] | null,
): number[] | string {
  if (subsamples === null) return [start, size];
  const out: number[] = [];
  let pos = start;
  for (let i = 0; i + 1 < subsamples.length; i += 2) {
    pos += subsamples[i] as number;
    const p = subsamples[i + 1] as number;
    if (pos + p > start + size) return `subsamples cover more than the ${size}-byte sample`;
    if (p > 0) out.push(pos, p);
    pos += p;
  }
  // ISO/IEC 23001-7 §7.2.2: the subsample sizes add up to the sample size.
  if (pos !== start + size) return `subsamples cover ${pos - start} bytes, sample has ${size}`;
  return out;
}

/**
 * Decrypts one sample in place in `data[start, start + size)`.
 * Returns an error value (never throws) when the subsample map does not fit the sample.
 */
export function decryptSampleInPlace(
  data: Buffer,
  start: number,
  size: number,
  c: SampleCipher,
): Result<void> {
  if (start < 0 || size < 0 || start + size > data.length)
    return fail("mdat", `sample ${start}+${size} outside ${data.length} bytes`);
  if (c.key.length !== 16) return fail("tenc", "key must be 16 bytes");
  if (c.iv.length !== 8 && c.iv.length !== 16)
    return fail("senc", `IV size ${c.iv.length} is neither 8 nor 16`);
  const ranges = protectedRanges(start, size, c.subsamples);
  if (typeof ranges === "string") return fail("senc", ranges);
  const counter = iv16(c.iv);
  switch (c.scheme) {
    case "cenc": {
      // §10.1: one keystream runs across all protected bytes of the sample.
      const ctr = new Ctr64(c.key, counter);
      for (let i = 0; i < ranges.length; i += 2) {
        const s = ranges[i] as number;
        ctr.run(data.subarray(s, s + (ranges[i + 1] as number)), data, s);
      }
      return DONE;
    }
    case "cens": {
      // §10.3: the keystream advances only over encrypted pattern blocks, across subsamples.
      const runs = collectRuns(ranges, c.cryptByteBlock, c.skipByteBlock);
      const total = gather(data, runs);
      if (total > 0) {
        const buf = scratchFor(total);
        new Ctr64(c.key, counter).run(buf.subarray(0, total), buf, 0);
        scatter(data, runs, buf);
      }
      return DONE;
    }
    case "cbc1": {
      // §10.2: one CBC chain over the complete blocks of all protected ranges.
      const runs = collectRuns(ranges, 0, 0);
      cbcRuns(data, runs, c.key, counter);
      return DONE;
    }
    case "cbcs": {
      // §10.4: pattern within each protected range; the IV restarts at every subsample.
      for (let i = 0; i < ranges.length; i += 2) {
        const runs: number[] = [];
        forEachPatternRun(
          ranges[i] as number,
          ranges[i + 1] as number,
          c.cryptByteBlock,
          c.skipByteBlock,
          (o, n) => runs.push(o, n),
        );
        cbcRuns(data, runs, c.key, counter);
      }
      return DONE;
    }
  }
}

function collectRuns(ranges: number[], crypt: number, skip: number): number[] {
  const runs: number[] = [];
  for (let i = 0; i < ranges.length; i += 2) {
    forEachPatternRun(ranges[i] as number, ranges[i + 1] as number, crypt, skip, (o, n) =>
      runs.push(o, n),
    );
  }
  return runs;
}

function gather(data: Buffer, runs: number[]): number {
  let total = 0;
  for (let i = 1; i < runs.length; i += 2) total += runs[i] as number;
  const buf = scratchFor(total);
  let at = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const o = runs[i] as number;
    const n = runs[i + 1] as number;
    // Pattern runs are usually one 16-byte block: a plain loop beats a native copy call there.
    if (n <= 64) for (let k = 0; k < n; k++) buf[at + k] = data[o + k] as number;
    else data.copy(buf, at, o, o + n);
    at += n;
  }
  return total;
}

function scatter(data: Buffer, runs: number[], buf: Buffer): void {
  let at = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const o = runs[i] as number;
    const n = runs[i + 1] as number;
    if (n <= 64) for (let k = 0; k < n; k++) data[o + k] = buf[at + k] as number;
    else buf.copy(data, o, at, at + n);
    at += n;
  }
}

/** CBC-decrypts the concatenation of `runs` as one chain starting at `iv`. */
function cbcRuns(data: Buffer, runs: number[], key: Buffer, iv: Buffer): void {
  if (runs.length === 0) return;
  const d = createDecipheriv("aes-128-cbc", key, iv);
  d.setAutoPadding(false);
  if (runs.length === 2) {
    const o = runs[0] as number;
    d.update(data.subarray(o, o + (runs[1] as number))).copy(data, o);
    return;
  }
  const total = gather(data, runs);
  const plain = d.update(scratchFor(total).subarray(0, total));
  scatter(data, runs, plain);
}
