import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { joinPackets } from "./ts-packet.js";

describe("joinPackets", () => {
  it("equals Buffer.concat over adjacent views, gaps, other buffers and copies", () => {
    const a = Buffer.alloc(188 * 6);
    for (let i = 0; i < a.length; i += 1) a[i] = i % 251;
    const b = Buffer.alloc(188 * 2, 7);
    const view = (buf: Buffer, i: number) => buf.subarray(i * 188, (i + 1) * 188);
    const packets = [
      view(a, 0),
      view(a, 1),
      view(a, 2),
      view(a, 4), // a gap: a new run
      view(b, 0),
      view(b, 1),
      Buffer.from(view(a, 5)), // a copy: its own buffer
      view(a, 5),
    ];
    const joined = joinPackets(packets);
    assert.deepEqual(joined, Buffer.concat(packets));
    assert.equal(joinPackets([]).length, 0);
  });
});
