import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listBoxes } from "./box-reader.js";
import { writeBox, writeFullBox } from "./box-writer.js";
import { parseAvcC, parseEsds, parseHvcC } from "./codec-config.js";
import { avcCodecString, hevcCodecString, mp4aCodecString } from "./codec-string.js";

const first = (buf: Buffer) => {
  const r = listBoxes(buf);
  assert.ok(r.ok);
  return r.value[0]!;
};

function esds(asc: number[], oti = 0x40): Buffer {
  const dsi = asc.length > 0 ? [0x05, asc.length, ...asc] : [];
  const dcd = [0x04, 13 + dsi.length, oti, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...dsi];
  // ES_Descriptor with a 4-byte expandable size, as some muxers write it.
  const es = [0x03, 0x80, 0x80, 0x80, 3 + dcd.length, 0, 1, 0, ...dcd];
  return writeFullBox("esds", 0, 0, Buffer.from(es));
}

describe("RFC 6381 codec strings", () => {
  it("avc1 from avcC", () => {
    const b = writeBox("avcC", Buffer.from([1, 0x4d, 0x40, 0x1f, 0xff, 0xe0]));
    assert.equal(avcCodecString("avc1", parseAvcC(b, first(b))), "avc1.4d401f");
    assert.equal(parseAvcC(b, first(b)).nalLengthSize, 4);
  });

  it("hvc1 from hvcC (Main, level 3.1, constraint byte B0)", () => {
    const rec = Buffer.from([
      1, 0x01, 0x60, 0, 0, 0, 0xb0, 0, 0, 0, 0, 0, 93, 0xf0, 0, 0xfc, 0xfd, 0xf8, 0xf8, 0, 0, 0x0f,
    ]);
    const b = writeBox("hvcC", rec);
    assert.equal(hevcCodecString("hvc1", parseHvcC(b, first(b))), "hvc1.1.6.L93.B0");
    const main10High = Buffer.from(rec);
    main10High[1] = 0x22; // tier high, profile 2
    main10High[2] = 0x20;
    main10High[3] = 0;
    main10High[12] = 150;
    const b2 = writeBox("hvcC", main10High);
    assert.equal(hevcCodecString("hev1", parseHvcC(b2, first(b2))), "hev1.2.4.H150.B0");
  });

  const aac: Array<[string, number[], string, number, number]> = [
    ["AAC-LC 48 kHz stereo", [0x11, 0x90], "mp4a.40.2", 48000, 2],
    ["HE-AAC explicit (AOT 5) 24 kHz mono", [0x2b, 0x08], "mp4a.40.5", 24000, 1],
    ["escape AOT 31 → 32+", [0xf8, 0x08, 0x80], "mp4a.40.32", 44100, 4],
  ];
  for (const [name, asc, codec, rate, ch] of aac) {
    it(name, () => {
      const b = esds(asc);
      const c = parseEsds(b, first(b));
      assert.equal(mp4aCodecString(c), codec);
      assert.equal(c.sampleRate, rate);
      assert.equal(c.channelConfiguration, ch);
      assert.deepEqual(c.audioSpecificConfig, Buffer.from(asc));
    });
  }

  it("non-MPEG-4 audio object type indication", () => {
    const b = esds([], 0x6b);
    assert.equal(mp4aCodecString(parseEsds(b, first(b))), "mp4a.6B");
  });
});
