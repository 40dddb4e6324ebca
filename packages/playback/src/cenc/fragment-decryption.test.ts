import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contentProtectionXml } from "@svc/test-kits/cenc/clearkey";
import { encryptFile } from "@svc/test-kits/cenc/fragment-encryptor";
import { encryptInit } from "@svc/test-kits/cenc/init-encryptor";
import { syntheticFragments, syntheticInit } from "@svc/test-kits/cenc/synthetic-media";
import { configFor, RECIPES, TEST_KEY, TEST_KID } from "@svc/test-kits/cenc/vector-configs";
import { parseMpd } from "../dash/manifest/mpd-parser.js";
import { wholeChunk } from "../dash/segmenter/chunk-assembler.js";
import { decryptingTransforms } from "./fragment-decryption.js";

const KID = TEST_KID.toString("hex");
const OTHER = "0123456789abcdef0123456789abcdef";

/** The first Representation of a one-set MPD whose AdaptationSet carries `protection`. */
function representation(protection: string) {
  const mpd = parseMpd(
    `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" type="static"
     mediaPresentationDuration="PT4S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
  <Period id="p0" start="PT0S">
    <AdaptationSet contentType="video" mimeType="video/mp4">
      ${protection}
      <SegmentTemplate timescale="1000" duration="2000" initialization="i.mp4" media="$Number$.m4s"/>
      <Representation id="v" codecs="avc1.64001f" bandwidth="1000000" width="640" height="360"/>
    </AdaptationSet>
  </Period>
</MPD>`,
    { url: "http://origin.test/live.mpd" },
  );
  assert.ok(mpd.ok);
  return mpd.value.periods[0]!.adaptationSets[0]!.representations[0]!;
}

const keys = (entries: [string, Buffer][]) => () => new Map(entries);
const recipe = RECIPES.find((r) => r.name === "cenc-iv8")!;
const cfg = configFor(recipe, { video: 1 });
const clearInit = syntheticInit(false);
const clearFragments = syntheticFragments({
  fragments: 2,
  videoSampleSizes: [3000, 500, 12000],
  audioSampleSizes: [],
});
const encrypted = encryptInit(clearInit, cfg);
const encryptedFragments = encryptFile(clearFragments, cfg, encrypted.info);

describe("decryptingTransforms", () => {
  it("decrypts init and fragments of a protected representation to the clear bytes' samples", () => {
    const factory = decryptingTransforms(keys([[KID, TEST_KEY]]));
    const made = factory({
      channelId: "c",
      representation: representation(contentProtectionXml("cenc", TEST_KID)),
    });
    assert.ok(made.ok);
    const init = made.transform.init(encrypted.init);
    assert.ok(init.ok);
    assert.equal(init.value.includes("encv"), false);
    assert.equal(init.value.includes("sinf"), false);
    assert.equal(made.transform.passthrough(), false);
    // The chunk as it arrived in three reads, decrypted read by read.
    const cut = [0, 100, 1000, encryptedFragments.length];
    const reads = cut.slice(1).map((end, i) => encryptedFragments.subarray(cut[i], end));
    const frag = made.transform.chunk({
      pieces: reads,
      byteLength: encryptedFragments.length,
      head: reads[0]!,
    });
    assert.ok(frag.ok);
    const out = Buffer.concat(frag.value.pieces);
    assert.equal(frag.value.byteLength, out.length);
    assert.equal(out.includes("senc"), false);
    // The whole buffer's decryption gives the same bytes.
    const whole = made.transform.chunk(wholeChunk(encryptedFragments));
    assert.ok(whole.ok);
    assert.deepEqual(Buffer.concat(whole.value.pieces), out);
    // The mdat payloads are the clear ones, byte for byte.
    const tail = (b: Buffer) => b.subarray(b.lastIndexOf("mdat") + 4);
    assert.deepEqual(tail(out), tail(clearFragments));
  });

  it("refuses a declared KID without a key, naming the KID and never a key", () => {
    const factory = decryptingTransforms(keys([[OTHER, TEST_KEY]]));
    const made = factory({
      channelId: "c",
      representation: representation(contentProtectionXml("cenc", TEST_KID)),
    });
    assert.ok(!made.ok && made.reason === `no key is configured for KID ${KID}`);
    assert.equal(JSON.stringify(made).includes(TEST_KEY.toString("hex")), false);
  });

  it("passes a clear init and its fragments through untouched, streamable", () => {
    const made = decryptingTransforms(keys([]))({
      channelId: "c",
      representation: representation(""),
    });
    assert.ok(made.ok);
    const init = made.transform.init(clearInit);
    assert.ok(init.ok && init.value === clearInit);
    assert.equal(made.transform.passthrough(), true);
    const chunk = wholeChunk(clearFragments);
    const frag = made.transform.chunk(chunk);
    assert.ok(frag.ok && frag.value === chunk);
  });

  it("decrypts a protected init the MPD did not announce, and names a KID it has no key for", () => {
    const ok = decryptingTransforms(keys([[KID, TEST_KEY]]))({
      channelId: "c",
      representation: representation(""),
    });
    assert.ok(ok.ok);
    assert.ok(ok.transform.init(encrypted.init).ok);
    assert.ok(ok.transform.chunk(wholeChunk(encryptedFragments)).ok);
    const missing = decryptingTransforms(keys([]))({
      channelId: "c",
      representation: representation(""),
    });
    assert.ok(missing.ok);
    const r = missing.transform.init(encrypted.init);
    assert.ok(!r.ok && r.error.message === `no key is configured for KID ${KID}`);
  });
});
