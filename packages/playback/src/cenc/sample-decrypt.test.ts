import assert from "node:assert/strict";
import { createCipheriv } from "node:crypto";
import { describe, it } from "node:test";
import { layoutFromCuts } from "@svc/test-kits/cenc/nal-subsamples";
import { encryptSampleReference } from "@svc/test-kits/cenc/reference-cipher";
import fc from "fast-check";
import { type CencScheme, decryptSampleInPlace, forEachPatternRun } from "./sample-decrypt.js";

const KEY = Buffer.from("000102030405060708090a0b0c0d0e0f", "hex");

/** A sample with a random subsample layout whose sizes add up to the sample. */
const sampleArb = fc
  .record({
    data: fc.uint8Array({ minLength: 0, maxLength: 3000 }),
    cuts: fc.array(fc.tuple(fc.nat(400), fc.nat(1200)), { minLength: 1, maxLength: 6 }),
    whole: fc.boolean(),
    iv: fc.uint8Array({ minLength: 16, maxLength: 16 }),
    iv8: fc.boolean(),
    crypt: fc.integer({ min: 0, max: 9 }),
    skip: fc.integer({ min: 0, max: 9 }),
  })
  .map((r) => {
    const data = Buffer.from(r.data);
    const subsamples = r.whole ? null : layoutFromCuts(data.length, r.cuts);
    return {
      data,
      subsamples,
      iv: Buffer.from(r.iv).subarray(0, r.iv8 ? 8 : 16),
      crypt: r.crypt,
      skip: r.skip,
    };
  });

describe("decrypt(encrypt(x)) = x", () => {
  for (const scheme of ["cenc", "cens", "cbc1", "cbcs"] as CencScheme[]) {
    it(scheme, () => {
      fc.assert(
        fc.property(sampleArb, ({ data, subsamples, iv, crypt, skip }) => {
          const usesPattern = scheme === "cens" || scheme === "cbcs";
          const spec = {
            scheme,
            key: KEY,
            iv,
            subsamples,
            crypt: usesPattern ? crypt : 0,
            skip: usesPattern ? skip : 0,
          };
          const buf = Buffer.concat([Buffer.from("head"), data, Buffer.from("tail")]);
          encryptSampleReference(buf, 4, data.length, spec);
          const r = decryptSampleInPlace(buf, 4, data.length, {
            scheme,
            key: KEY,
            iv,
            subsamples,
            cryptByteBlock: spec.crypt,
            skipByteBlock: spec.skip,
          });
          assert.ok(r.ok);
          assert.deepEqual(buf.subarray(4, 4 + data.length), data);
          assert.equal(
            buf.toString("latin1", 0, 4) + buf.toString("latin1", buf.length - 4),
            "headtail",
          );
        }),
        { numRuns: 150 },
      );
    });
  }
});

describe("cipher details", () => {
  it("cenc with an 8-byte IV equals AES-CTR from IV||0", () => {
    const plain = Buffer.from("a".repeat(100));
    const iv = Buffer.from("0102030405060708", "hex");
    const c = createCipheriv("aes-128-ctr", KEY, Buffer.concat([iv, Buffer.alloc(8)]));
    const enc = c.update(plain);
    assert.ok(
      decryptSampleInPlace(enc, 0, enc.length, {
        scheme: "cenc",
        key: KEY,
        iv,
        subsamples: null,
        cryptByteBlock: 0,
        skipByteBlock: 0,
      }).ok,
    );
    assert.deepEqual(enc, plain);
  });

  it("cenc block counter wraps within the low 64 bits (§10.1), unlike a 128-bit increment", () => {
    const plain = Buffer.alloc(64, 7);
    const iv = Buffer.from("0000000000000001ffffffffffffffff", "hex");
    const enc = Buffer.from(plain);
    encryptSampleReference(enc, 0, 64, {
      scheme: "cenc",
      key: KEY,
      iv,
      subsamples: null,
      crypt: 0,
      skip: 0,
    });
    const full128 = createCipheriv("aes-128-ctr", KEY, iv).update(plain);
    assert.notDeepEqual(enc.subarray(16), full128.subarray(16));
    assert.ok(
      decryptSampleInPlace(enc, 0, 64, {
        scheme: "cenc",
        key: KEY,
        iv,
        subsamples: null,
        cryptByteBlock: 0,
        skipByteBlock: 0,
      }).ok,
    );
    assert.deepEqual(enc, plain);
  });

  it("cbcs restarts the IV at each subsample and leaves partial blocks clear", () => {
    const iv = Buffer.alloc(16, 9);
    const plain = Buffer.alloc(100, 1);
    const buf = Buffer.from(plain);
    encryptSampleReference(buf, 0, 100, {
      scheme: "cbcs",
      key: KEY,
      iv,
      subsamples: [10, 40, 10, 40],
      crypt: 1,
      skip: 0,
    });
    // 40 protected bytes = 2 blocks + 8 clear; both subsamples start from the same IV, so equal plaintext gives equal ciphertext.
    assert.deepEqual(buf.subarray(10, 42), buf.subarray(60, 92));
    assert.deepEqual(buf.subarray(42, 60), plain.subarray(42, 60));
    assert.notDeepEqual(buf.subarray(10, 42), plain.subarray(10, 42));
  });

  it("pattern runs follow crypt:skip and encrypt the complete blocks of a short last run", () => {
    const runs: number[][] = [];
    forEachPatternRun(0, 16 * 25 + 5, 2, 3, (o, n) => runs.push([o, n]));
    assert.deepEqual(
      runs,
      [
        [0, 32],
        [80, 32],
        [160, 32],
        [240, 32],
        [320, 32],
        [400, 0],
      ].filter((r) => r[1]! > 0),
    );
    const tail: number[][] = [];
    forEachPatternRun(0, 16 * 6 + 3, 2, 3, (o, n) => tail.push([o, n]));
    assert.deepEqual(tail, [
      [0, 32],
      [80, 16],
    ]);
  });

  it("rejects subsample maps that do not cover the sample exactly", () => {
    const base = {
      scheme: "cenc" as const,
      key: KEY,
      iv: Buffer.alloc(8),
      cryptByteBlock: 0,
      skipByteBlock: 0,
    };
    const over = decryptSampleInPlace(Buffer.alloc(50), 0, 50, { ...base, subsamples: [10, 41] });
    assert.deepEqual(over, {
      ok: false,
      error: { box: "senc", message: "subsamples cover more than the 50-byte sample" },
    });
    const under = decryptSampleInPlace(Buffer.alloc(50), 0, 50, { ...base, subsamples: [10, 30] });
    assert.equal(under.ok, false);
    const outside = decryptSampleInPlace(Buffer.alloc(50), 40, 20, { ...base, subsamples: null });
    assert.equal(outside.ok ? "" : outside.error.box, "mdat");
  });
});
