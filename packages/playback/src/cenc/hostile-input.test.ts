import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encryptFile } from "@svc/test-kits/cenc/fragment-encryptor";
import { syntheticFragments, syntheticInit } from "@svc/test-kits/cenc/synthetic-media";
import { configFor, RECIPES, TEST_KEY, TEST_KID } from "@svc/test-kits/cenc/vector-configs";
import fc from "fast-check";
import type { Result } from "../mp4/parse-result.js";
import { DecryptEngine } from "./decrypt-engine.js";
import { decryptSegment } from "./segment-decrypt.js";

const KEYS = new Map([[TEST_KID.toString("hex"), TEST_KEY]]);
const recipe = (name: string) => RECIPES.find((r) => r.name === name)!;
const clear = Buffer.concat([
  syntheticInit(),
  syntheticFragments({
    fragments: 2,
    videoSampleSizes: [3000, 700, 500],
    audioSampleSizes: [300, 301],
  }),
]);
const cenc = encryptFile(clear, configFor(recipe("cenc-iv8"), { video: 1, audio: 2 }));
const cbcs = encryptFile(clear, configFor(recipe("cbcs-1-9-constant-iv"), { video: 1, audio: 2 }));

/** Offset of the n-th box of `type` (by its fourcc) in `buf`. */
function boxAt(buf: Buffer, type: string, nth = 0): number {
  let i = -1;
  for (let k = 0; k <= nth; k++) i = buf.indexOf(type, i + 1, "latin1");
  assert.ok(i >= 4, `${type} #${nth} not found`);
  return i - 4;
}

function mutate(base: Buffer, edit: (b: Buffer) => void): Buffer {
  const b = Buffer.from(base);
  edit(b);
  return b;
}

function expectError(r: Result<unknown>, box: string, pattern: RegExp): void {
  assert.equal(r.ok, false, "expected an error value");
  if (r.ok) return;
  assert.equal(r.error.box, box, JSON.stringify(r.error));
  assert.match(r.error.message, pattern);
}

describe("hostile input yields error values", () => {
  const cases: Array<{
    name: string;
    input: Buffer;
    box: string;
    message: RegExp;
    keys?: Map<string, Buffer>;
  }> = [
    {
      name: "trun sample_count larger than its box",
      input: mutate(cenc, (b) => b.writeUInt32BE(0xfffffff0, boxAt(b, "trun") + 12)),
      box: "trun",
      message: /sample_count 4294967280 needs/,
    },
    {
      name: "senc sample_count larger than the trun",
      input: mutate(cenc, (b) => b.writeUInt32BE(99, boxAt(b, "senc") + 12)),
      box: "senc",
      message: /sample_count 99 does not match 3/,
    },
    {
      name: "senc truncated (subsample count past the box)",
      input: mutate(cenc, (b) => b.writeUInt16BE(0xffff, boxAt(b, "senc") + 16 + 8)),
      box: "senc",
      message: /truncated/,
    },
    {
      name: "IV size 0 without a constant IV",
      input: mutate(cenc, (b) => {
        b[boxAt(b, "tenc") + 15] = 0;
      }),
      box: "tenc",
      message: /constant_IV_size|truncated/,
    },
    {
      name: "subsample sizes summing past the sample",
      input: mutate(cenc, (b) => b.writeUInt32BE(0x7fffffff, boxAt(b, "senc") + 16 + 8 + 2 + 2)),
      box: "senc",
      message: /subsamples cover more than the 3000-byte sample/,
    },
    {
      name: "sample size past the mdat",
      input: mutate(cenc, (b) => b.writeUInt32BE(1_000_000, boxAt(b, "trun", 1) + 28)),
      box: "trun",
      message: /outside the mdat/,
    },
    {
      name: "missing key names the KID",
      input: cenc,
      keys: new Map(),
      box: "tenc",
      message: new RegExp(`no key for KID ${TEST_KID.toString("hex")}$`),
    },
    {
      name: "unsupported scheme",
      input: mutate(cenc, (b) => b.write("abcd", boxAt(b, "schm") + 12, "latin1")),
      box: "schm",
      message: /unsupported scheme 'abcd'/,
    },
    {
      name: "moof size past the end of input",
      input: mutate(cenc, (b) => b.writeUInt32BE(b.length, boxAt(b, "moof"))),
      box: "moof",
      message: /ends inside a box/,
    },
    {
      name: "child box overrunning its container",
      input: mutate(cenc, (b) => b.writeUInt32BE(5000, boxAt(b, "tfhd"))),
      box: "tfhd",
      message: /overruns its container/,
    },
    {
      name: "box size smaller than its header",
      input: mutate(cenc, (b) => b.writeUInt32BE(3, boxAt(b, "mfhd"))),
      box: "moof",
      message: /smaller than its header/,
    },
    {
      name: "saio pointing outside the moof",
      input: mutate(cenc, (b) => {
        const s = boxAt(b, "senc");
        b.write("free", s + 4, "latin1");
        b.writeUInt32BE(0x00ffffff, boxAt(b, "saio") + 16);
      }),
      box: "saio",
      message: /outside the moof/,
    },
    {
      name: "stsd entry_count larger than its entries",
      input: mutate(cenc, (b) => b.writeUInt32BE(7, boxAt(b, "stsd") + 12)),
      box: "stsd",
      message: /entry_count 7/,
    },
    {
      name: "moof before any init",
      input: cenc.subarray(boxAt(cenc, "moof")),
      box: "moof",
      message: /no decryption context/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = decryptSegment(c.input, { keys: c.keys ?? KEYS });
      expectError(r, c.box, c.message);
      if (c.keys)
        assert.equal(JSON.stringify(r).includes(TEST_KEY.toString("hex")), false, "key leaked");
    });
  }

  it("cbcs constant IV decrypts without any aux info for audio", () => {
    const r = decryptSegment(cbcs, { keys: KEYS });
    assert.ok(r.ok);
    assert.deepEqual(r.value, clear);
  });

  it("random corruption and truncation never throw, hang or over-read", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(cenc, cbcs),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.nat(),
        fc.integer({ min: 1, max: 4096 }),
        (base, flips, cut, chunk) => {
          const b = Buffer.from(base.subarray(0, base.length - (cut % 64)));
          for (const [at, v] of flips) b[at % b.length] = v;
          const r = decryptSegment(b, { keys: KEYS });
          assert.equal(typeof r.ok, "boolean");
          const engine = new DecryptEngine({ keys: KEYS });
          let failed = false;
          for (let i = 0; i < b.length && !failed; i += chunk)
            failed = !engine.write(b.subarray(i, i + chunk)).ok;
          if (!failed) engine.end();
        },
      ),
      { numRuns: 400 },
    );
  });
});
