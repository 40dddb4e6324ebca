import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeBox } from "../../mp4/box-writer.js";
import { ChunkAssembler, type CmafChunk } from "./chunk-assembler.js";

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

/** A socket read: a buffer of its own (not from the shared pool, so views are traceable). */
function ownBuffer(bytes: Buffer): Buffer {
  const b = Buffer.alloc(bytes.length);
  bytes.copy(b);
  return b;
}

/**
 * Feeds `buf` in reads of `size` bytes (each read its own buffer, as a socket gives them);
 * returns the chunks in order of completion and the reads.
 */
function feed(
  buf: Buffer,
  size: number,
): { chunks: CmafChunk[]; completedAt: number[]; reads: Buffer[] } {
  const a = new ChunkAssembler(1 << 20);
  const chunks: CmafChunk[] = [];
  const completedAt: number[] = [];
  const reads: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) {
    const read = ownBuffer(buf.subarray(i, i + size));
    reads.push(read);
    const r = a.push(read);
    assert.ok(r.ok, r.ok ? "" : r.error.message);
    for (const c of r.value) {
      chunks.push(c);
      completedAt.push(Math.min(buf.length, i + size));
    }
  }
  assert.ok(a.end().ok);
  return { chunks, completedAt, reads };
}

const joined = (c: CmafChunk) => Buffer.concat(c.pieces);

describe("ChunkAssembler: CMAF chunks out of a byte stream", () => {
  for (const size of [1, 7, 64, 333, segment.length]) {
    it(`cuts [styp prft moof mdat] [prft moof mdat] fed ${size} bytes at a time`, () => {
      const { chunks, reads } = feed(segment, size);
      assert.deepEqual(chunks.map(joined), [chunk1, chunk2]);
      assert.deepEqual(
        chunks.map((c) => c.byteLength),
        [chunk1.length, chunk2.length],
      );
      // The head is the chunk's bytes through the end of its moof, contiguous.
      assert.deepEqual(chunks[0]!.head, Buffer.concat([styp, prft, moof1]));
      assert.deepEqual(chunks[1]!.head, Buffer.concat([prft, moof2]));
      // Every piece is a view of a read, never a copy.
      for (const c of chunks)
        for (const p of c.pieces) {
          assert.ok(p.length > 0);
          assert.ok(
            reads.some((r) => r.buffer === p.buffer),
            "a piece is a view of a read",
          );
        }
    });
  }

  it("keeps a chunk that arrived in several reads as those reads, uncopied", () => {
    // Three reads: the first holds the prefix, the moof and the start of the mdat.
    const cut = [0, 100, 250, segment.length];
    const reads = cut.slice(1).map((end, i) => ownBuffer(segment.subarray(cut[i], end)));
    const a = new ChunkAssembler(1 << 20);
    const out: CmafChunk[] = [];
    for (const r of reads) {
      const pushed = a.push(r);
      assert.ok(pushed.ok);
      out.push(...pushed.value);
    }
    assert.equal(out.length, 2);
    const [c1, c2] = out as [CmafChunk, CmafChunk];
    assert.equal(c1.pieces.length, 3);
    assert.equal(c1.pieces[0], reads[0]);
    assert.equal(c1.pieces[1], reads[1]);
    // The read holding chunk 1's end also starts chunk 2: both are views of it.
    assert.equal(c1.pieces[2]!.buffer, reads[2]!.buffer);
    assert.equal(c2.pieces.length, 1);
    assert.equal(c2.pieces[0]!.buffer, reads[2]!.buffer);
    assert.equal(c1.head.buffer, reads[0]!.buffer, "the head is a view when one read holds it");
    assert.deepEqual(joined(c1), chunk1);
    assert.deepEqual(joined(c2), chunk2);
  });

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
