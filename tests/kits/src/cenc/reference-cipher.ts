import { createCipheriv } from "node:crypto";

/** The four protection schemes of ISO/IEC 23001-7 §4.2. */
export type CencScheme = "cenc" | "cens" | "cbc1" | "cbcs";

/** How a test vector sample is protected; mirrors the decryptor's input but is built independently. */
export interface ReferenceSpec {
  scheme: CencScheme;
  key: Buffer;
  iv: Buffer;
  /** `[clear, protected, ...]` or null for whole-sample encryption. */
  subsamples: readonly number[] | null;
  crypt: number;
  skip: number;
}

/**
 * Encrypts `data[start, start+size)` in place. Written separately from the decryptor
 * (manual 64-bit counter blocks through AES-ECB, own pattern walk) so that a shared
 * misreading of ISO/IEC 23001-7 cannot make a round trip pass by accident; ffmpeg
 * checks these vectors independently.
 */
export function encryptSampleReference(
  data: Buffer,
  start: number,
  size: number,
  spec: ReferenceSpec,
): void {
  const regions: Array<[number, number]> = [];
  if (spec.subsamples === null) regions.push([start, size]);
  else {
    let pos = start;
    for (let i = 0; i < spec.subsamples.length; i += 2) {
      pos += spec.subsamples[i] ?? 0;
      const p = spec.subsamples[i + 1] ?? 0;
      regions.push([pos, p]);
      pos += p;
    }
    if (pos !== start + size) throw new Error(`subsamples cover ${pos - start} of ${size} bytes`);
  }
  const iv =
    spec.iv.length === 16 ? Buffer.from(spec.iv) : Buffer.concat([spec.iv, Buffer.alloc(8)]);
  const blocksOf = (reg: [number, number]): Array<[number, number]> =>
    patternBlocks(reg[0], reg[1], spec.crypt, spec.skip);
  switch (spec.scheme) {
    case "cenc": {
      const spans = regions.filter((r) => r[1] > 0);
      ctrXor(data, spans, spec.key, iv);
      return;
    }
    case "cens":
      ctrXor(data, regions.flatMap(blocksOf), spec.key, iv);
      return;
    case "cbc1":
      cbcChain(
        data,
        regions.flatMap((r) => patternBlocks(r[0], r[1], 0, 0)),
        spec.key,
        iv,
      );
      return;
    case "cbcs":
      for (const r of regions) cbcChain(data, blocksOf(r), spec.key, iv);
      return;
  }
}

/** Encrypted block spans of one region per the crypt:skip pattern; 0:0 = every whole block. */
function patternBlocks(
  start: number,
  len: number,
  crypt: number,
  skip: number,
): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const blocks = Math.floor(len / 16);
  if (crypt === 0 && skip > 0) return spans;
  for (let b = 0; b < blocks; b++) {
    const inCrypt = crypt === 0 || skip === 0 || b % (crypt + skip) < crypt;
    if (inCrypt) spans.push([start + b * 16, 16]);
  }
  return spans;
}

function ctrXor(data: Buffer, spans: Array<[number, number]>, key: Buffer, iv: Buffer): void {
  const total = spans.reduce((n, s) => n + s[1], 0);
  const nBlocks = Math.ceil(total / 16);
  const counters = Buffer.alloc(nBlocks * 16);
  const high = iv.subarray(0, 8);
  let low = iv.readBigUInt64BE(8);
  for (let b = 0; b < nBlocks; b++) {
    high.copy(counters, b * 16);
    counters.writeBigUInt64BE(low, b * 16 + 8);
    low = (low + 1n) & 0xffffffffffffffffn;
  }
  const ecb = createCipheriv("aes-128-ecb", key, null);
  ecb.setAutoPadding(false);
  const stream = ecb.update(counters);
  let k = 0;
  for (const [o, n] of spans)
    for (let i = 0; i < n; i++) data[o + i] = (data[o + i] as number) ^ (stream[k++] as number);
}

function cbcChain(data: Buffer, spans: Array<[number, number]>, key: Buffer, iv: Buffer): void {
  const total = spans.reduce((n, s) => n + s[1], 0);
  if (total === 0) return;
  const plain = Buffer.concat(spans.map(([o, n]) => data.subarray(o, o + n)));
  const c = createCipheriv("aes-128-cbc", key, iv);
  c.setAutoPadding(false);
  const enc = c.update(plain);
  let k = 0;
  for (const [o, n] of spans) {
    enc.copy(data, o, k, k + n);
    k += n;
  }
}
