import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { adtsHeader, parseAudioSpecificConfig } from "./adts.js";

describe("ADTS", () => {
  it("reads AAC LC 48 kHz stereo and writes its header", () => {
    const c = parseAudioSpecificConfig(Buffer.from([0x11, 0x90]));
    assert.deepEqual(c, { objectType: 2, frequencyIndex: 3, channelConfiguration: 2 });
    // 371-byte frame: frame_length 378 = 0b0_0001_0111_1010.
    assert.equal(adtsHeader(c, 371).toString("hex"), "fff14c802f5ffc");
  });

  it("carries HE-AAC (explicit SBR) as its AAC LC core", () => {
    // object type 5, 24 kHz core (index 6), stereo, SBR at 48 kHz (3), then type 2.
    const asc = Buffer.from([0x2b, 0x11, 0x88, 0x00]);
    assert.deepEqual(parseAudioSpecificConfig(asc), {
      objectType: 2,
      frequencyIndex: 6,
      channelConfiguration: 2,
    });
  });

  it("refuses what ADTS cannot carry", () => {
    // object type 42 (USAC) through the escape.
    assert.throws(
      () => parseAudioSpecificConfig(Buffer.from([0xf9, 0x46, 0x40])),
      /object type 42/,
    );
    assert.throws(
      () => parseAudioSpecificConfig(Buffer.from([0x11, 0x80])),
      /channel configuration 0/,
    );
  });
});
