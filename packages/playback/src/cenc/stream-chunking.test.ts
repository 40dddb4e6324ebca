import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, it } from "node:test";
import {
  encryptedSynthetic,
  RECIPES,
  TEST_KEY,
  TEST_KID,
} from "@svc/test-kits/cenc/vector-configs";
import fc from "fast-check";
import { DecryptEngine } from "./decrypt-engine.js";
import { createDecryptStream } from "./decrypt-stream.js";
import { decryptSegment } from "./segment-decrypt.js";

const KEYS = new Map([[TEST_KID.toString("hex"), TEST_KEY]]);

/** Splits `input` into fresh buffers of the given sizes, cycled. */
function chunked(input: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < input.length; i++) {
    const n = sizes[i % sizes.length] as number;
    out.push(Buffer.from(input.subarray(at, at + n)));
    at += n;
  }
  return out;
}

async function viaStream(chunks: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    createDecryptStream({ keys: KEYS }),
    async (src: AsyncIterable<unknown>) => {
      for await (const b of src) out.push(b as Buffer);
    },
  );
  return Buffer.concat(out);
}

function viaEngine(chunks: Buffer[]): Buffer {
  const engine = new DecryptEngine({ keys: KEYS });
  const out: Buffer[] = [];
  for (const c of chunks) {
    const r = engine.write(c);
    assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.error));
    out.push(...r.value);
  }
  const tail = engine.end();
  assert.ok(tail.ok);
  return Buffer.concat([...out, ...tail.value]);
}

describe("stream output equals buffer output for any chunking", () => {
  for (const recipe of RECIPES) {
    it(recipe.name, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 9000 }), { minLength: 1, maxLength: 4 }),
          fc.array(fc.integer({ min: 0, max: 900 }), { maxLength: 6 }),
          fc.oneof(
            fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
            fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 8 }),
          ),
          async (video, audio, sizes) => {
            const { clear, enc } = encryptedSynthetic(recipe, video, audio);
            const whole = decryptSegment(enc, { keys: KEYS });
            assert.ok(whole.ok, whole.ok ? "" : JSON.stringify(whole.error));
            assert.ok(whole.value.equals(clear));
            const chunks = chunked(enc, sizes);
            assert.ok(viaEngine(chunks).equals(whole.value), "engine output differs");
            assert.ok((await viaStream(chunks)).equals(whole.value), "stream output differs");
            assert.ok(Buffer.concat(chunks).equals(enc), "input chunks were written to");
          },
        ),
        { numRuns: 30, endOnFailure: true },
      );
    });
  }
});
