import { fail, ok, type Result } from "../mp4/parse-result.js";
import { cryptRunBytes, skipRunBytes } from "./pattern-runs.js";
import { SampleDecryptor } from "./sample-decryptor.js";
import { InPlaceOutput } from "./sample-output.js";

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
  let pos = start;
  let left = length;
  while (left > 0) {
    const n = cryptRunBytes(left, crypt, skip);
    if (n > 0) visit(pos, n);
    pos += n;
    left -= n;
    const k = skipRunBytes(left, crypt, skip);
    pos += k;
    left -= k;
  }
}

// Decryption is synchronous, so one decryptor and output serve every call.
const decryptor = new SampleDecryptor();
const output = new InPlaceOutput();
const DONE: Result<void> = Object.freeze(ok(undefined));

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
  const bad = decryptor.begin(c, size);
  if (bad) return bad;
  output.begin(data);
  decryptor.feed(data, start, start + size, output);
  output.finish();
  return DONE;
}
