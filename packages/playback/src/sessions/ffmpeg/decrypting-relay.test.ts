import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import {
  encryptedSynthetic,
  RECIPES,
  TEST_KEY,
  TEST_KID,
} from "@svc/test-kits/cenc/vector-configs";
import { listBoxes } from "../../mp4/box-reader.js";
import { decryptingRewrite } from "./decrypting-relay.js";

const keys = new Map([[TEST_KID.toString("hex"), TEST_KEY]]);
const recipe = (name: string) => RECIPES.find((r) => r.name === name)!;

/** A synthetic file cut into its init segment and its media segment. */
function split(file: Buffer): { init: Buffer; media: Buffer } {
  const boxes = listBoxes(file);
  assert.ok(boxes.ok);
  const firstMoof = boxes.value.find((b) => b.type === "moof")!;
  return { init: file.subarray(0, firstMoof.start), media: file.subarray(firstMoof.start) };
}

/** The payloads of every `mdat`: what a decoder reads. */
function mdats(buf: Buffer): Buffer {
  const boxes = listBoxes(buf);
  assert.ok(boxes.ok);
  return Buffer.concat(
    boxes.value.filter((b) => b.type === "mdat").map((b) => buf.subarray(b.start + 8, b.end)),
  );
}

async function through(rewrite: ReturnType<typeof decryptingRewrite>, url: string, body: Buffer) {
  return rewrite(new URL(url), Readable.from([body]));
}

describe("decryptingRewrite", () => {
  const cenc8 = encryptedSynthetic(recipe("cenc-iv8"), [3000, 700], [300, 120]);
  const cenc16 = encryptedSynthetic(recipe("cenc-iv16"), [2000, 500], [200]);

  for (const name of ["cenc-iv8", "cbcs-1-9-constant-iv"]) {
    it(`${name}: a clear init (no encv/enca/sinf/pssh), then the clear samples`, async () => {
      const { clear, enc } = encryptedSynthetic(recipe(name), [4000, 900], [256]);
      const rewrite = decryptingRewrite(keys);
      const encrypted = split(enc);
      const init = await through(rewrite, "http://o/v/init.mp4", encrypted.init);
      assert.ok(init.ok);
      for (const box of ["encv", "enca", "sinf", "pssh"])
        assert.equal(init.bytes.includes(box), false, box);
      const media = await through(rewrite, "http://o/v/1.m4s", encrypted.media);
      assert.ok(media.ok);
      assert.notDeepEqual(mdats(encrypted.media), mdats(split(clear).media));
      assert.deepEqual(mdats(media.bytes), mdats(split(clear).media));
    });
  }

  it("passes what is not ISO BMFF (the MPD) and clear fragments unchanged", async () => {
    const rewrite = decryptingRewrite(keys);
    const mpd = Buffer.from('<?xml version="1.0"?><MPD/>');
    assert.deepEqual(await through(rewrite, "http://o/a.mpd", mpd), { ok: true, bytes: mpd });
    const clearMedia = split(cenc8.clear).media;
    // No init seen yet protects the track: the fragment is taken as clear.
    assert.deepEqual(await through(rewrite, "http://o/v/1.m4s", clearMedia), {
      ok: true,
      bytes: clearMedia,
    });
  });

  it("inits that disagree on a track: the URL decides, a tie is an error", async () => {
    const rewrite = decryptingRewrite(keys);
    assert.ok((await through(rewrite, "http://o/iv8/init.mp4", split(cenc8.enc).init)).ok);
    assert.ok((await through(rewrite, "http://o/iv16/init.mp4", split(cenc16.enc).init)).ok);
    const iv8 = await through(rewrite, "http://o/iv8/7.m4s", split(cenc8.enc).media);
    assert.ok(iv8.ok);
    assert.deepEqual(mdats(iv8.bytes), mdats(split(cenc8.clear).media));
    const iv16 = await through(rewrite, "http://o/iv16/7.m4s", split(cenc16.enc).media);
    assert.ok(iv16.ok);
    assert.deepEqual(mdats(iv16.bytes), mdats(split(cenc16.clear).media));
    assert.deepEqual(await through(rewrite, "http://o/other/7.m4s", split(cenc8.enc).media), {
      ok: false,
      message: "cannot tell which init segment a media segment belongs to",
    });
  });

  it("a truncated fragment is an error, never a pass-through of encrypted bytes", async () => {
    const rewrite = decryptingRewrite(keys);
    assert.ok((await through(rewrite, "http://o/v/init.mp4", split(cenc8.enc).init)).ok);
    const media = split(cenc8.enc).media;
    const r = await through(rewrite, "http://o/v/2.m4s", media.subarray(0, media.length - 40));
    assert.equal(r.ok, false);
  });
});
