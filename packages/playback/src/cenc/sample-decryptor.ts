import { createDecipheriv, type Decipher } from "node:crypto";
import { type Failure, fail } from "../mp4/parse-result.js";
import { Ctr64 } from "./ctr64.js";
import { counterWords } from "./ecb-batch.js";
import { cryptRunBytes, skipRunBytes } from "./pattern-runs.js";
import type { SampleCipher } from "./sample-decrypt.js";
import type { SampleOutput } from "./sample-output.js";

/**
 * Samples without a crypt:skip pattern (cenc, cbc1, whole-block cens/cbcs) that have at
 * least this many protected bytes get a native AES-CTR or AES-CBC decipher of their own,
 * whose output goes downstream as is; smaller ones (audio) and patterned samples share
 * batched ECB work, which saves a cipher set-up per sample or subsample.
 */
export const NATIVE_CTR_MIN = 2048;

/** How the crypt runs of a sample are decrypted. */
const NATIVE_CTR = 0;
const BATCH_CTR = 1;
const BATCH_CBC = 2;
const NATIVE_CBC = 3;

let chains = 0;

/**
 * Decrypts one sample at a time from consecutive slices of its bytes, so a sample that
 * spans input chunks is never gathered: CTR keystreams continue across slices, and a CBC
 * block cut by a slice end is held back (at most 15 bytes) until its rest arrives.
 *
 * Feed each sample with {@link begin} then {@link feed} until {@link left} is 0.
 */
export class SampleDecryptor {
  /** Bytes of the current sample not yet fed. */
  left = 0;
  private key: Buffer = EMPTY;
  private method = NATIVE_CTR;
  private restartPerSubsample = false;
  /** cenc: every protected byte is encrypted (§10.1); no pattern and no block rounding. */
  private allBytes = false;
  private crypt = 0;
  private skip = 0;
  private map: readonly number[] | null = null;
  private pair = 0;
  private clearLeft = 0;
  private rangeLeft = 0;
  private phaseLeft = 0;
  private inCrypt = false;
  private cryptNext = true;
  private ctr: Ctr64 | null = null;
  /** NATIVE_CBC: the current chain's decipher, created at its first encrypted block. */
  private cbc: Decipher | null = null;
  private ksPos = 0;
  private readonly counter = Buffer.alloc(16);
  private readonly words = new Uint32Array(4);
  /** The chain's last ciphertext block (or IV) when it is not at `src[prevAt]` of the current slice. */
  private readonly prev = Buffer.alloc(16);
  private prevAt = -1;
  private chain = 0;
  /** Whether this feed already claimed its output range for batch work. */
  private claimed = false;
  private readonly carry = Buffer.alloc(16);
  private carryLen = 0;

  /** Bytes held back: the start of a CBC block cut by the end of the last slice. */
  get heldBytes(): number {
    return this.carryLen;
  }

  /**
   * Starts a sample of `size` bytes. Returns an error value (and starts nothing) when
   * the key, IV or subsample map cannot describe this sample.
   */
  begin(c: SampleCipher, size: number): Failure | null {
    if (c.key.length !== 16) return fail("tenc", "key must be 16 bytes");
    if (c.iv.length !== 8 && c.iv.length !== 16)
      return fail("senc", `IV size ${c.iv.length} is neither 8 nor 16`);
    let protectedBytes = size;
    const map = c.subsamples;
    if (map !== null) {
      let pos = 0;
      protectedBytes = 0;
      for (let i = 0; i + 1 < map.length; i += 2) {
        pos += map[i] as number;
        const p = map[i + 1] as number;
        if (pos + p > size)
          return fail("senc", `subsamples cover more than the ${size}-byte sample`);
        protectedBytes += p;
        pos += p;
      }
      // ISO/IEC 23001-7 §7.2.2: the subsample sizes add up to the sample size.
      if (pos !== size) return fail("senc", `subsamples cover ${pos} bytes, sample has ${size}`);
    }
    this.left = size;
    this.key = c.key;
    this.map = map;
    this.pair = 0;
    this.clearLeft = 0;
    this.rangeLeft = map === null ? size : 0;
    this.phaseLeft = 0;
    this.cryptNext = true;
    this.carryLen = 0;
    this.ksPos = 0;
    this.ctr = null;
    // §9.1: an 8-byte IV fills the high half; the low half (the block counter) starts at 0.
    this.counter.fill(0);
    c.iv.copy(this.counter, 0, 0, 16);
    const scheme = c.scheme;
    this.allBytes = scheme === "cenc";
    // §10.2 (cbc1) has no pattern: whole blocks of each protected range.
    this.crypt = scheme === "cens" || scheme === "cbcs" ? c.cryptByteBlock : 0;
    this.skip = scheme === "cens" || scheme === "cbcs" ? c.skipByteBlock : 0;
    this.restartPerSubsample = scheme === "cbcs";
    const ctrFamily = scheme === "cenc" || scheme === "cens";
    // §9.6: no pattern (0:0, or a zero crypt or skip count) means whole blocks, one long run.
    const long =
      (scheme === "cenc" || this.crypt === 0 || this.skip === 0) &&
      protectedBytes >= NATIVE_CTR_MIN;
    if (ctrFamily) this.method = long ? NATIVE_CTR : BATCH_CTR;
    else this.method = long ? NATIVE_CBC : BATCH_CBC;
    if (this.method === NATIVE_CTR) this.ctr = new Ctr64(c.key, this.counter);
    if (this.method === BATCH_CTR) counterWords(this.counter, this.words);
    // §10.2: cbc1 runs one chain over the sample; §10.4: cbcs restarts it at each subsample.
    if (!ctrFamily) this.newChain();
    return null;
  }

  /** Decrypts the next `to - from` bytes of the sample, found at `src[from, to)`. */
  feed(src: Buffer, from: number, to: number, out: SampleOutput): void {
    this.left -= to - from;
    this.claimed = false;
    let p = from;
    if (this.carryLen > 0) p = this.fillCarry(src, p, to, out);
    while (p < to) {
      if (this.clearLeft > 0) {
        const n = Math.min(this.clearLeft, to - p);
        this.clearLeft -= n;
        p += n;
      } else if (this.phaseLeft > 0) {
        const n = Math.min(this.phaseLeft, to - p);
        if (this.inCrypt) this.cryptBytes(src, p, n, to, out);
        this.phaseLeft -= n;
        p += n;
      } else if (this.rangeLeft > 0) {
        this.nextRun();
      } else {
        this.nextSubsample(to - p);
      }
    }
    // The slice goes away: keep the chain's last ciphertext block.
    if (this.prevAt >= 0) {
      src.copy(this.prev, 0, this.prevAt, this.prevAt + 16);
      this.prevAt = -1;
    }
  }

  private nextSubsample(rest: number): void {
    const map = this.map;
    if (map === null || this.pair + 1 >= map.length) {
      // Unreachable for a map checked by begin(); keeps the walk total.
      this.clearLeft = rest;
      return;
    }
    this.clearLeft = map[this.pair] as number;
    this.rangeLeft = map[this.pair + 1] as number;
    this.pair += 2;
    this.cryptNext = true;
    if (this.restartPerSubsample) this.newChain();
  }

  /** Sets up the next crypt or skip run of the protected range (§9.6). */
  private nextRun(): void {
    if (this.cryptNext) {
      this.cryptNext = false;
      const n = this.allBytes
        ? this.rangeLeft
        : cryptRunBytes(this.rangeLeft, this.crypt, this.skip);
      if (n > 0) {
        this.inCrypt = true;
        this.phaseLeft = n;
        this.rangeLeft -= n;
        return;
      }
    }
    const k = skipRunBytes(this.rangeLeft, this.crypt, this.skip);
    this.inCrypt = false;
    this.cryptNext = true;
    this.phaseLeft = k;
    this.rangeLeft -= k;
  }

  private newChain(): void {
    this.counter.copy(this.prev, 0, 0, 16);
    this.prevAt = -1;
    this.chain = ++chains;
    this.cbc = null;
  }

  private chainDecipher(): Decipher {
    if (!this.cbc) {
      this.cbc = createDecipheriv("aes-128-cbc", this.key, this.counter);
      this.cbc.setAutoPadding(false);
    }
    return this.cbc;
  }

  /** Decrypts `n` bytes of a crypt run at `src[p]`; the feed ends at `to`. */
  private cryptBytes(src: Buffer, p: number, n: number, to: number, out: SampleOutput): void {
    if (this.method === NATIVE_CTR) {
      out.piece(p, p + n, (this.ctr as Ctr64).update(src.subarray(p, p + n)));
      return;
    }
    if (this.method === NATIVE_CBC) {
      // CBC runs are whole blocks; only the end of a slice can cut one.
      const whole = n - (n % 16);
      if (whole > 0)
        out.piece(p, p + whole, this.chainDecipher().update(src.subarray(p, p + whole)));
      if (whole < n) this.holdBack(src, p + whole, p + n, out);
      return;
    }
    if (!this.claimed) {
      // Pattern runs are short: claim the rest of the feed once rather than run by run.
      out.claim(p, to);
      this.claimed = true;
    }
    if (this.method === BATCH_CTR) {
      out.batchFor(this.key, "ctr").addCtr(this.key, p, n, this.words, this.ksPos);
      this.ksPos += n;
      return;
    }
    // CBC runs are whole blocks; only the end of a slice can cut one.
    const whole = n - (n % 16);
    if (whole > 0) {
      const batch = out.batchFor(this.key, "cbc");
      if (this.prevAt >= 0) batch.addCbc(this.key, p, src, p, whole, src, this.prevAt, this.chain);
      else batch.addCbc(this.key, p, src, p, whole, this.prev, 0, this.chain);
      this.prevAt = p + whole - 16;
    }
    if (whole < n) this.holdBack(src, p + whole, p + n, out);
  }

  /** Keeps `src[from, to)`, the start of a CBC block cut by the slice end. */
  private holdBack(src: Buffer, from: number, to: number, out: SampleOutput): void {
    src.copy(this.carry, 0, from, to);
    this.carryLen = to - from;
    out.hold(from);
  }

  /** Completes a held CBC block from the start of a new slice; returns the new position. */
  private fillCarry(src: Buffer, p: number, to: number, out: SampleOutput): number {
    const n = Math.min(16 - this.carryLen, to - p);
    src.copy(this.carry, this.carryLen, p, p + n);
    this.carryLen += n;
    this.phaseLeft -= n;
    const end = p + n;
    if (this.carryLen < 16) {
      out.hold(end - this.carryLen);
      return end;
    }
    this.carryLen = 0;
    if (this.method === NATIVE_CBC) {
      // The block's first bytes were held back from the previous slice: it starts before 0.
      out.piece(end - 16, end, this.chainDecipher().update(this.carry));
      return end;
    }
    out.claim(end - 16, to);
    this.claimed = true;
    out
      .batchFor(this.key, "cbc")
      .addCbc(this.key, end - 16, this.carry, 0, 16, this.prev, 0, this.chain);
    this.carry.copy(this.prev, 0, 0, 16);
    return end;
  }
}

const EMPTY = Buffer.alloc(0);
