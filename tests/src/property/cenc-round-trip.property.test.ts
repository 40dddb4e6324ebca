import assert from "node:assert/strict";
import { createCipheriv } from "node:crypto";
import { describe, it } from "node:test";
import { decryptSampleInPlace } from "@svc/playback/sample-decrypt";
import fc from "fast-check";
import { runs } from "./property-runs.js";

// Property: a sample encrypted here with node:crypto, following ISO/IEC 23001-7 as written,
// decrypts with the gateway's sample decryptor to the clear bytes, for `cenc` (AES-CTR,
// 64-bit block counter) and `cbcs` (AES-CBC, constant IV, crypt:skip pattern), whole samples
// and any subsample map. The encryptor below is independent of packages/playback.

/** §10.1: the counter block is the IV (8 bytes zero-extended) and only its low 64 bits count. */
function ctrKeystream(key: Buffer, iv: Buffer, length: number): Buffer {
  const ecb = createCipheriv("aes-128-ecb", key, null);
  ecb.setAutoPadding(false);
  const iv16 = iv.length === 8 ? Buffer.concat([iv, Buffer.alloc(8)]) : Buffer.from(iv);
  const high = iv16.readBigUInt64BE(0);
  const low = iv16.readBigUInt64BE(8);
  const blocks = Math.ceil(length / 16);
  const counters = Buffer.alloc(blocks * 16);
  for (let b = 0; b < blocks; b++) {
    counters.writeBigUInt64BE(high, b * 16);
    counters.writeBigUInt64BE((low + BigInt(b)) & 0xffff_ffff_ffff_ffffn, b * 16 + 8);
  }
  return ecb.update(counters).subarray(0, length);
}

/** Protected ranges `[offset, length]` of a sample: its subsample map, or the whole sample. */
function protectedRanges(size: number, subsamples: readonly number[] | null): [number, number][] {
  if (subsamples === null) return [[0, size]];
  const out: [number, number][] = [];
  let at = 0;
  for (let i = 0; i < subsamples.length; i += 2) {
    at += subsamples[i]!;
    out.push([at, subsamples[i + 1]!]);
    at += subsamples[i + 1]!;
  }
  return out;
}

/** `cenc` §10.1: the protected bytes of all subsamples form one CTR stream. */
function encryptCenc(clear: Buffer, key: Buffer, iv: Buffer, subsamples: number[] | null): Buffer {
  const out = Buffer.from(clear);
  const ranges = protectedRanges(clear.length, subsamples);
  const total = ranges.reduce((n, [, len]) => n + len, 0);
  const ks = ctrKeystream(key, iv, total);
  let k = 0;
  for (const [off, len] of ranges) for (let i = 0; i < len; i++) out[off + i]! ^= ks[k++]!;
  return out;
}

/**
 * `cbcs` §10.4: each protected range restarts CBC from the constant IV; within it, the first
 * `crypt` of every `crypt + skip` 16-byte blocks are encrypted as one CBC chain; a trailing
 * partial block stays clear. A pattern 0:0 (audio, whole samples) encrypts every full block.
 */
function encryptCbcs(
  clear: Buffer,
  key: Buffer,
  iv: Buffer,
  subsamples: number[] | null,
  crypt: number,
  skip: number,
): Buffer {
  const out = Buffer.from(clear);
  for (const [off, len] of protectedRanges(clear.length, subsamples)) {
    const blocks = Math.floor(len / 16);
    const chosen: number[] = [];
    for (let b = 0; b < blocks; b++) {
      if (crypt === 0 || skip === 0 || b % (crypt + skip) < crypt) chosen.push(off + b * 16);
    }
    if (chosen.length === 0) continue;
    const cbc = createCipheriv("aes-128-cbc", key, iv);
    cbc.setAutoPadding(false);
    const enc = cbc.update(Buffer.concat(chosen.map((at) => clear.subarray(at, at + 16))));
    for (const [i, at] of chosen.entries()) enc.copy(out, at, i * 16, i * 16 + 16);
  }
  return out;
}

const aesKey = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b));
/** A sample with its subsample map (clear/protected pairs summing to the sample size), or null. */
const sample = fc.oneof(
  fc
    .uint8Array({ minLength: 0, maxLength: 2500 })
    .map((b) => ({ data: Buffer.from(b), map: null as number[] | null })),
  fc.array(fc.tuple(fc.nat(300), fc.nat(1200)), { minLength: 1, maxLength: 6 }).chain((pairs) => {
    const size = pairs.reduce((n, [c, p]) => n + c + p, 0);
    return fc
      .uint8Array({ minLength: size, maxLength: size })
      .map((b) => ({ data: Buffer.from(b), map: pairs.flat() as number[] | null }));
  }),
);

function decrypt(
  encrypted: Buffer,
  cipher: Parameters<typeof decryptSampleInPlace>[3],
  lead: number,
): Buffer {
  // The sample sits inside a larger mdat payload, as it does in a fragment.
  const mdat = Buffer.concat([Buffer.alloc(lead, 0xa5), encrypted, Buffer.alloc(7, 0x5a)]);
  const result = decryptSampleInPlace(mdat, lead, encrypted.length, cipher);
  assert.ok(result.ok, JSON.stringify(result));
  assert.ok(
    mdat.subarray(0, lead).every((b) => b === 0xa5),
    "bytes before the sample changed",
  );
  assert.ok(
    mdat.subarray(lead + encrypted.length).every((b) => b === 0x5a),
    "bytes after changed",
  );
  return mdat.subarray(lead, lead + encrypted.length);
}

describe("property: CENC round trips (node:crypto encrypts, the gateway decrypts)", () => {
  it("cenc: AES-CTR with 8- and 16-byte IVs, counter wrapping in the low 64 bits", () => {
    const iv = fc.oneof(
      fc.uint8Array({ minLength: 8, maxLength: 8 }),
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      // Low 64 bits a few blocks from wrapping (§10.1: the carry must not reach the high half).
      fc.tuple(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.nat(40)).map(([hi, back]) => {
        const b = Buffer.alloc(16);
        b.set(hi, 0);
        b.writeBigUInt64BE(0xffff_ffff_ffff_ffffn - BigInt(back), 8);
        return b;
      }),
    );
    fc.assert(
      fc.property(aesKey, iv, sample, fc.nat(40), (key, ivBytes, { data, map }, lead) => {
        const ivBuf = Buffer.from(ivBytes);
        const enc = encryptCenc(data, key, ivBuf, map);
        const cipher = {
          scheme: "cenc" as const,
          key,
          iv: ivBuf,
          subsamples: map,
          cryptByteBlock: 0,
          skipByteBlock: 0,
        };
        assert.deepEqual(decrypt(enc, cipher, lead), data);
      }),
      runs(400),
    );
  });

  it("cbcs: AES-CBC with a constant IV, 1:9 / 5:5 / 0:0 / n:0 patterns, partial blocks clear", () => {
    const pattern = fc.oneof(
      fc.constantFrom<[number, number]>([1, 9], [5, 5], [0, 0], [2, 3]),
      fc.tuple(fc.integer({ min: 1, max: 15 }), fc.integer({ min: 0, max: 15 })),
    );
    fc.assert(
      fc.property(
        aesKey,
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        sample,
        pattern,
        fc.nat(40),
        (key, ivBytes, { data, map }, [crypt, skip], lead) => {
          const iv = Buffer.from(ivBytes);
          const enc = encryptCbcs(data, key, iv, map, crypt, skip);
          const cipher = {
            scheme: "cbcs" as const,
            key,
            iv,
            subsamples: map,
            cryptByteBlock: crypt,
            skipByteBlock: skip,
          };
          assert.deepEqual(decrypt(enc, cipher, lead), data);
        },
      ),
      runs(400),
    );
  });

  it("a subsample map that does not cover the sample is an error, never a partial decryption", () => {
    fc.assert(
      fc.property(aesKey, sample, fc.integer({ min: -3, max: 3 }), (key, { data, map }, delta) => {
        fc.pre(map !== null && delta !== 0 && data.length + delta >= 0);
        const copy = Buffer.concat([data, Buffer.alloc(Math.max(0, delta))]);
        const size = data.length + delta;
        const cipher = {
          scheme: "cenc" as const,
          key,
          iv: Buffer.alloc(16),
          subsamples: map,
          cryptByteBlock: 0,
          skipByteBlock: 0,
        };
        const before = Buffer.from(copy);
        const result = decryptSampleInPlace(copy, 0, size, cipher);
        assert.equal(result.ok, false);
        assert.deepEqual(copy, before, "bytes changed on a refused sample");
      }),
      runs(300),
    );
  });
});
