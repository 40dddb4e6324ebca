import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeBox } from "../../mp4/box-writer.js";
import { ChunkAssembler } from "./chunk-assembler.js";

const box = (type: string, n: number) => writeBox(type, Buffer.alloc(n, 7));
const styp = box("styp", 12);
const prft = box("prft", 20);
const moof1 = box("moof", 40);
const mdat1 = box("mdat", 300);
const moof2 = box("moof", 44);
const mdat2 = box("mdat", 200);
const segment = Buffer.concat([styp, prft, moof1, mdat1, prft, moof2, mdat2]);
const chunk1 = Buffer.concat([styp, prft, moof1, mdat1]);
const chunk2 = Buffer.concat([prft, moof2, mdat2]);

/** Feeds `buf` in pieces of `size` bytes; returns the chunks in order of completion. */
function feed(buf: Buffer, size: number): { chunks: Buffer[]; completedAt: number[] } {
  const a = new ChunkAssembler(1 << 20);
  const chunks: Buffer[] = [];
  const completedAt: number[] = [];
  for (let i = 0; i < buf.length; i += size) {
    const r = a.push(buf.subarray(i, i + size));
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    for (const c of r.value) {
      chunks.push(c);
      completedAt.push(Math.min(buf.length, i + size));
    }
  }
  assert.ok(a.end().ok);
  return { chunks, completedAt };
}

describe("ChunkAssembler: CMAF chunks out of a byte stream", () => {
  for (const size of [1, 7, 64, 333, segment.length]) {
    it(`cuts [styp prft moof mdat] [prft moof mdat] fed ${size} bytes at a time`, () => {
      const { chunks } = feed(segment, size);
      assert.deepEqual(chunks, [chunk1, chunk2]);
    });
  }

  it("emits a chunk the moment its mdat's last byte arrives, not later", () => {
    const { completedAt } = feed(segment, 1);
    assert.deepEqual(completedAt, [chunk1.length, segment.length]);
  });

  const bad: [string, Buffer, string][] = [
    ["mdat first", Buffer.concat([mdat1, moof1]), "mdat"],
    ["two moofs", Buffer.concat([moof1, moof2, mdat1]), "moof"],
    ["unknown box between moof and mdat", Buffer.concat([moof1, box("free", 4), mdat1]), "free"],
    ["a moov in a media segment", Buffer.concat([box("moov", 8)]), "moov"],
  ];
  for (const [name, input, element] of bad) {
    it(`fails as a value on ${name}`, () => {
      const r = new ChunkAssembler(1 << 20).push(input);
      assert.equal(r.ok, false);
      assert.equal(r.ok ? "" : r.error.box, element);
    });
  }

  it("reports a segment that ends inside a chunk", () => {
    const a = new ChunkAssembler(1 << 20);
    assert.ok(a.push(chunk1.subarray(0, chunk1.length - 3)).ok);
    const end = a.end();
    assert.equal(end.ok, false);
    assert.match(end.ok ? "" : end.error.message, /ends inside a chunk/);
  });

  it("never buffers more than its ceiling", () => {
    const a = new ChunkAssembler(100);
    const r = a.push(Buffer.concat([moof1, mdat1]).subarray(0, 150));
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.error.message, /larger than 100 bytes/);
  });
});
