import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { layoutFromCuts } from "@svc/test-kits/cenc/nal-subsamples";
import { encryptSampleReference } from "@svc/test-kits/cenc/reference-cipher";
import fc from "fast-check";
import { type CencScheme, decryptSampleInPlace } from "./sample-decrypt.js";
import { NATIVE_CTR_MIN, SampleDecryptor } from "./sample-decryptor.js";
import { SliceOutput } from "./slice-output.js";

const KEY = Buffer.from("000102030405060708090a0b0c0d0e0f", "hex");

/** Samples of random layout, pattern and IV, including IVs whose 64-bit block counter wraps inside the sample. */
const caseArb = fc
  .record({
    data: fc.uint8Array({ minLength: 0, maxLength: 3 * NATIVE_CTR_MIN, size: "max" }),
    cuts: fc.array(fc.tuple(fc.nat(300), fc.nat(2500)), { minLength: 1, maxLength: 5 }),
    whole: fc.boolean(),
    iv: fc.uint8Array({ minLength: 16, maxLength: 16 }),
    iv8: fc.boolean(),
    nearWrap: fc.boolean(),
    wrapAfter: fc.integer({ min: 1, max: 16 }),
    crypt: fc.integer({ min: 0, max: 9 }),
    skip: fc.integer({ min: 0, max: 9 }),
    slices: fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 12 }),
  })
  .map((r) => {
    const data = Buffer.from(r.data);
    const subsamples = r.whole ? null : layoutFromCuts(data.length, r.cuts);
    const iv = Buffer.from(r.iv).subarray(0, r.iv8 ? 8 : 16);
    // A low half of 0xffffffff_ffffffxx wraps after a few blocks (§10.1).
    if (r.nearWrap && iv.length === 16) {
      iv.fill(0xff, 8, 16);
      iv[15] = 0x100 - r.wrapAfter;
    }
    return { data, subsamples, iv, crypt: r.crypt, skip: r.skip, slices: r.slices };
  });

/** Feeds `enc` to a fresh decryptor in slices of the given (cycled) sizes; returns the joined output. */
function streamSample(
  enc: Buffer,
  scheme: CencScheme,
  c: { iv: Buffer; subsamples: number[] | null; crypt: number; skip: number },
  slices: number[],
): Buffer {
  const dec = new SampleDecryptor();
  const output = new SliceOutput();
  const started = dec.begin(
    {
      scheme,
      key: KEY,
      iv: c.iv,
      subsamples: c.subsamples,
      cryptByteBlock: c.crypt,
      skipByteBlock: c.skip,
    },
    enc.length,
  );
  assert.equal(started, null);
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < enc.length; i++) {
    const n = Math.min(slices[i % slices.length] as number, enc.length - at);
    // Each slice is a separate buffer, as stream chunks are.
    const slice = Buffer.from(enc.subarray(at, at + n));
    output.begin(slice, out);
    dec.feed(slice, 0, n, output);
    output.finish();
    at += n;
    // ISO/IEC 23001-7 leaves at most one cut AES block to wait for.
    assert.ok(dec.heldBytes < 16 && output.heldBytes === dec.heldBytes);
    assert.equal(dec.left, enc.length - at);
  }
  assert.equal(dec.heldBytes, 0);
  return Buffer.concat(out);
}

describe("streaming sample decryption over arbitrary slices", () => {
  for (const scheme of ["cenc", "cens", "cbc1", "cbcs"] as CencScheme[]) {
    it(`${scheme}: slices of any size give the clear sample`, () => {
      fc.assert(
        fc.property(caseArb, ({ data, subsamples, iv, crypt, skip, slices }) => {
          const usesPattern = scheme === "cens" || scheme === "cbcs";
          const spec = {
            scheme,
            key: KEY,
            iv,
            subsamples,
            crypt: usesPattern ? crypt : 0,
            skip: usesPattern ? skip : 0,
          };
          const enc = Buffer.from(data);
          encryptSampleReference(enc, 0, enc.length, spec);
          const input = Buffer.from(enc);
          const clear = streamSample(enc, scheme, spec, slices);
          assert.deepEqual(clear, data);
          assert.deepEqual(enc, input, "the input slices are never written");
        }),
        // Shrinking samples of several KiB takes minutes; report the failing case as found.
        { numRuns: 200, endOnFailure: true },
      );
    });
  }

  it("a CBC block cut across three slices is held, then released in order", () => {
    const data = Buffer.alloc(64, 0x5a);
    const iv = Buffer.alloc(16, 3);
    const spec = { scheme: "cbcs" as const, key: KEY, iv, subsamples: null, crypt: 1, skip: 0 };
    const enc = Buffer.from(data);
    encryptSampleReference(enc, 0, 64, spec);
    assert.deepEqual(streamSample(enc, "cbcs", spec, [20, 5, 5, 34]), data);
  });
});

describe("batches larger than the batch limit", () => {
  for (const [scheme, crypt, skip, size] of [
    ["cbc1", 0, 0, 200_000],
    ["cbcs", 1, 9, 900_000],
    ["cens", 1, 9, 900_000],
    ["cenc", 0, 0, 1_000],
  ] as Array<[CencScheme, number, number, number]>) {
    it(`${scheme}: a ${size}-byte sample decrypts in place and sliced`, () => {
      const data = Buffer.alloc(size);
      for (let i = 0; i < size; i++) data[i] = (i * 131 + (i >> 9)) & 0xff;
      const spec = {
        scheme,
        key: KEY,
        iv: Buffer.alloc(16, 7),
        subsamples: [5, size - 5],
        crypt,
        skip,
      };
      const enc = Buffer.from(data);
      encryptSampleReference(enc, 0, size, spec);
      const inPlace = Buffer.from(enc);
      const r = decryptSampleInPlace(inPlace, 0, size, {
        scheme,
        key: KEY,
        iv: spec.iv,
        subsamples: spec.subsamples,
        cryptByteBlock: crypt,
        skipByteBlock: skip,
      });
      assert.ok(r.ok);
      assert.ok(inPlace.equals(data), "in place");
      assert.ok(streamSample(enc, scheme, spec, [size]).equals(data), "one slice");
      assert.ok(streamSample(enc, scheme, spec, [65_531, 17]).equals(data), "many slices");
    });
  }
});
