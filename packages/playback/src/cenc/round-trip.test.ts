import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, it } from "node:test";
import {
  CLEARKEY_SYSTEM_ID,
  clearKeyPssh,
  contentProtectionXml,
} from "@svc/test-kits/cenc/clearkey";
import { encryptFile } from "@svc/test-kits/cenc/fragment-encryptor";
import { syntheticFragments, syntheticInit } from "@svc/test-kits/cenc/synthetic-media";
import {
  configFor,
  encryptedSynthetic,
  RECIPES,
  TEST_KEY,
  TEST_KID,
} from "@svc/test-kits/cenc/vector-configs";
import fc from "fast-check";
import { listBoxes } from "../mp4/box-reader.js";
import { CencStreamError, createDecryptStream } from "./decrypt-stream.js";
import { keyTableFromHex, kidToUuid } from "./kid.js";
import { parsePssh } from "./protection-boxes.js";
import { decryptSegment } from "./segment-decrypt.js";

const KEYS = new Map([[TEST_KID.toString("hex"), TEST_KEY]]);

async function collect(input: Buffer, cuts: number[]): Promise<Buffer> {
  const pieces: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts.map((x) => x % (input.length + 1))].sort((a, b) => a - b)) {
    pieces.push(input.subarray(at, Math.max(at, c)));
    at = Math.max(at, c);
  }
  pieces.push(input.subarray(at));
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(pieces.filter((p) => p.length > 0)),
    createDecryptStream({ keys: KEYS }),
    async (src: AsyncIterable<unknown>) => {
      for await (const b of src) out.push(b as Buffer);
    },
  );
  return Buffer.concat(out);
}

describe("fragment round trip (decrypt(encrypt(clear)) is byte-identical)", () => {
  for (const recipe of RECIPES) {
    it(recipe.name, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 40000 }), { minLength: 1, maxLength: 5 }),
          fc.array(fc.integer({ min: 0, max: 700 }), { maxLength: 5 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          fc.boolean(),
          async (video, audio, cuts, psshInMoof) => {
            const { clear, enc } = encryptedSynthetic(recipe, video, audio, { psshInMoof });
            const dec = decryptSegment(enc, { keys: KEYS });
            assert.ok(dec.ok, dec.ok ? "" : JSON.stringify(dec.error));
            assert.ok(dec.value.equals(clear));
            assert.ok((await collect(enc, cuts)).equals(clear));
          },
        ),
        { numRuns: 25 },
      );
    });
  }

  it("per-track KIDs resolve from tenc", () => {
    const kid2 = Buffer.alloc(16, 0x22);
    const key2 = Buffer.alloc(16, 0x33);
    const clear = Buffer.concat([
      syntheticInit(),
      syntheticFragments({ fragments: 1, videoSampleSizes: [5000], audioSampleSizes: [400] }),
    ]);
    const recipe = RECIPES[0]!;
    const cfg = configFor(recipe, { video: 1, audio: 2 });
    cfg.tracks.set(2, { ...cfg.tracks.get(2)!, kid: kid2, key: key2 });
    const enc = encryptFile(clear, cfg);
    const missing = decryptSegment(enc, { keys: KEYS });
    assert.deepEqual(missing, {
      ok: false,
      error: { box: "tenc", message: `no key for KID ${kid2.toString("hex")}` },
    });
    const both = decryptSegment(enc, { keys: new Map([...KEYS, [kid2.toString("hex"), key2]]) });
    assert.ok(both.ok && both.value.equals(clear));
  });

  it("the stream reports malformed input as a CencStreamError", async () => {
    await assert.rejects(
      collect(
        Buffer.concat([
          syntheticFragments({ fragments: 1, videoSampleSizes: [10], audioSampleSizes: [] }),
        ]),
        [],
      ),
      (e: unknown) => {
        assert.ok(e instanceof CencStreamError);
        assert.equal(e.detail.box, "moof");
        return true;
      },
    );
  });
});

describe("ClearKey signalling", () => {
  it("pssh v1 lists the KIDs under the ClearKey system ID", () => {
    const box = clearKeyPssh([TEST_KID]);
    const list = listBoxes(box);
    assert.ok(list.ok);
    assert.deepEqual(parsePssh(box, list.value[0]!), {
      systemId: CLEARKEY_SYSTEM_ID,
      kids: [TEST_KID.toString("hex")],
      data: Buffer.alloc(0),
    });
  });

  it("MPD ContentProtection carries default_KID in UUID form", () => {
    const xml = contentProtectionXml("cenc", TEST_KID);
    assert.match(
      xml,
      /schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="00112233-4455-6677-8899-aabbccddeeff"/,
    );
    assert.match(xml, /schemeIdUri="urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b"/);
    assert.equal(
      kidToUuid("00112233445566778899AABBCCDDEEFF"),
      "00112233-4455-6677-8899-aabbccddeeff",
    );
  });

  it("key tables accept UUID-form KIDs and never echo keys in errors", () => {
    const ok = keyTableFromHex({
      "00112233-4455-6677-8899-aabbccddeeff": TEST_KEY.toString("hex"),
    });
    assert.ok(ok.ok && ok.value.get(TEST_KID.toString("hex"))?.equals(TEST_KEY));
    const bad = keyTableFromHex({ [TEST_KID.toString("hex")]: "secretsecret" });
    assert.equal(bad.ok, false);
    assert.equal(JSON.stringify(bad).includes("secretsecret"), false);
  });
});
