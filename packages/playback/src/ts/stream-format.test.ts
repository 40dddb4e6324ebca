import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { streamFormatOf } from "./stream-format.js";

function tsPackets(n: number, lead = 0): Buffer {
  const b = Buffer.alloc(lead + n * 188, 0xff);
  for (let i = 0; i < n; i++) {
    const at = lead + i * 188;
    b[at] = 0x47;
    b[at + 1] = 0x01;
    b[at + 2] = 0x00;
    b[at + 3] = 0x10 | (i & 0xf);
  }
  return b;
}

describe("streamFormatOf", () => {
  for (const [name, head, ended, format] of [
    ["TS on the grid", tsPackets(8), false, "ts"],
    ["TS after garbage", tsPackets(8, 77), false, "ts"],
    ["too few packets yet", tsPackets(2), false, undefined],
    ["an HLS playlist", Buffer.from("#EXTM3U\n#EXT-X-VERSION:3\n"), false, "hls"],
    ["an HLS playlist with a BOM", Buffer.from("\uFEFF#EXTM3U\n"), false, "hls"],
    ["an MPD", Buffer.from('<?xml version="1.0"?>\n<MPD type="dynamic">'), false, "dash"],
    ["HTML at the end", Buffer.from("<html></html>"), true, "unknown"],
  ] as const)
    it(name, () => {
      assert.equal(streamFormatOf(head, ended), format);
    });
});
