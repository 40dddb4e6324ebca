import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { unescapeRbsp } from "./nal-scan.js";
import { spsPictureSize } from "./sps-resolution.js";

// SPS NAL units written by ffmpeg (libx264, libx265) for test pictures of known sizes.
const cases: [string, "h264" | "h265", string, { width: number; height: number } | undefined][] = [
  [
    "H.264 High 1280x720",
    "h264",
    "6764001facd9405005bb011000000300100000030320f1831960",
    { width: 1280, height: 720 },
  ],
  [
    "H.264 Baseline 720x576",
    "h264",
    "6742c01ed900b4126c0440000003004000000c83c58b92",
    { width: 720, height: 576 },
  ],
  [
    "H.265 Main 640x360 (conformance window)",
    "h265",
    "42010101600000030090000003000003003fa00502016965959a4932bc05a0200000030020000003",
    { width: 640, height: 360 },
  ],
  ["cut short", "h264", "6764001f", undefined],
];

describe("spsPictureSize", () => {
  for (const [name, codec, hex, want] of cases)
    it(name, () =>
      assert.deepEqual(spsPictureSize(codec, unescapeRbsp(Buffer.from(hex, "hex"))), want),
    );
});
