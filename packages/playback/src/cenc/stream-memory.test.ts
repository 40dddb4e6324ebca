import assert from "node:assert/strict";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, it } from "node:test";
import { encryptFile } from "@svc/test-kits/cenc/fragment-encryptor";
import { syntheticFragments, syntheticInit } from "@svc/test-kits/cenc/synthetic-media";
import { configFor, RECIPES, TEST_KEY, TEST_KID } from "@svc/test-kits/cenc/vector-configs";
import { DecryptEngine } from "./decrypt-engine.js";
import { createDecryptStream } from "./decrypt-stream.js";

const KEYS = new Map([[TEST_KID.toString("hex"), TEST_KEY]]);
// One fragment whose mdat (~1.9 MB) is far larger than any bound below: 300 KB samples.
const SAMPLES = [300_000, 310_000, 290_000, 305_000, 295_000, 301_000];
const clearInit = syntheticInit(false);
const clearFragment = syntheticFragments({
  fragments: 1,
  videoSampleSizes: SAMPLES,
  audioSampleSizes: [],
});
const mdatPayload = SAMPLES.reduce((a, b) => a + b, 0);

/** Position just past the mdat header in `buf`. */
function mdatPayloadStart(buf: Buffer): number {
  const i = buf.indexOf("mdat", 0, "latin1");
  assert.ok(i >= 4);
  return i + 4;
}

describe("memory stays bounded by one cipher block, not by samples or the mdat", () => {
  for (const recipe of RECIPES) {
    it(`${recipe.name}: engine holds < 16 bytes and emits each chunk as it arrives`, () => {
      const enc = encryptFile(
        Buffer.concat([clearInit, clearFragment]),
        configFor(recipe, { video: 1 }),
      );
      const payload = mdatPayloadStart(enc);
      const engine = new DecryptEngine({ keys: KEYS });
      // Everything up to the mdat payload in one write: init, moof and mdat header.
      const head = engine.write(enc.subarray(0, payload));
      assert.ok(head.ok);
      let inBytes = 0;
      let outBytes = 0;
      let maxLag = 0;
      // Odd chunk sizes cut cipher blocks and samples everywhere.
      for (let at = payload, i = 0; at < enc.length; i++) {
        const n = [4093, 1000, 17, 65536][i % 4] as number;
        const chunk = enc.subarray(at, Math.min(at + n, enc.length));
        at += chunk.length;
        const r = engine.write(chunk);
        assert.ok(r.ok);
        inBytes += chunk.length;
        for (const b of r.value) outBytes += b.length;
        // What came in and did not go out is exactly what the engine says it holds.
        assert.equal(inBytes - outBytes, engine.bufferedBytes);
        assert.ok(engine.bufferedBytes < 16, `holds ${engine.bufferedBytes} bytes`);
        maxLag = Math.max(maxLag, inBytes - outBytes);
      }
      assert.equal(inBytes, mdatPayload);
      assert.equal(outBytes, mdatPayload);
      assert.ok(engine.end().ok);
      // cbc schemes do cut blocks at these chunk ends; CTR never holds anything.
      if (recipe.scheme === "cenc" || recipe.scheme === "cens") assert.equal(maxLag, 0);
    });
  }

  it("the Transform buffers no more than its high-water marks and one chunk under a slow consumer", async () => {
    const recipe = RECIPES.find((r) => r.name === "cenc-iv8")!;
    const enc = encryptFile(
      Buffer.concat([clearInit, clearFragment]),
      configFor(recipe, { video: 1 }),
    );
    const CHUNK = 16 * 1024;
    const chunks: Buffer[] = [];
    for (let at = 0; at < enc.length; at += CHUNK) chunks.push(enc.subarray(at, at + CHUNK));
    const stream = createDecryptStream({ keys: KEYS });
    let peak = 0;
    let received = 0;
    const slow = new Writable({
      highWaterMark: CHUNK,
      write(b: Buffer, _e, done) {
        received += b.length;
        peak = Math.max(peak, stream.readableLength + stream.writableLength);
        setTimeout(done, 0);
      },
    });
    await pipeline(Readable.from(chunks), stream, slow);
    // Output: the clear file minus nothing but encryption boxes; the mdat dominates it.
    assert.ok(received > mdatPayload);
    // Readable buffer ≤ its high-water mark plus the output of one input chunk (< 16 bytes
    // are held back), writable buffer ≤ its high-water mark plus one chunk; a sample
    // (300 KB) or the mdat (1.8 MB) arriving at once would be far above this.
    const bound = stream.readableHighWaterMark + stream.writableHighWaterMark + 2 * CHUNK + 16;
    assert.ok(peak <= bound, `peak ${peak} > ${bound}`);
  });
});
