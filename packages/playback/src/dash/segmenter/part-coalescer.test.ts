import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WindowPart } from "../publisher/rendition-window.js";
import { wholeChunk } from "./chunk-assembler.js";
import { PartCoalescer } from "./part-coalescer.js";

/** Feeds `count` chunks of `durationSec` (chunk `i` holds byte `i`), sync where `sync(i)`. */
function feed(
  c: PartCoalescer,
  count: number,
  durationSec: number,
  sync: (i: number) => boolean,
): WindowPart[] {
  const parts: WindowPart[] = [];
  for (let i = 0; i < count; i++) {
    const p = c.add(wholeChunk(Buffer.from([i])), durationSec, sync(i));
    if (p) parts.push(p);
  }
  const tail = c.flush();
  if (tail) parts.push(tail);
  return parts;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

describe("PartCoalescer: CMAF chunks grouped into LL-HLS parts", () => {
  const table: {
    name: string;
    target: number;
    chunk: number;
    count: number;
    durations: number[];
    ceiling: number;
  }[] = [
    {
      name: "one-frame chunks at 25 fps, 1 s segment, 400 ms target",
      target: 0.4,
      chunk: 0.04,
      count: 25,
      durations: [0.4, 0.4, 0.2],
      ceiling: 0.4,
    },
    {
      name: "one-frame chunks at 25 fps, 333 ms target (8 frames)",
      target: 0.333,
      chunk: 0.04,
      count: 25,
      durations: [0.32, 0.32, 0.32, 0.04],
      ceiling: 0.32,
    },
    {
      name: "0.5 s chunks, 400 ms target: never below a chunk",
      target: 0.4,
      chunk: 0.5,
      count: 4,
      durations: [0.5, 0.5, 0.5, 0.5],
      ceiling: 0.5,
    },
    {
      name: "AAC frames at 48 kHz (21.33 ms), 400 ms target (18 frames)",
      target: 0.4,
      chunk: 1024 / 48000,
      count: 47,
      durations: [(18 * 1024) / 48000, (18 * 1024) / 48000, (11 * 1024) / 48000],
      ceiling: (18 * 1024) / 48000,
    },
  ];
  for (const t of table) {
    it(t.name, () => {
      const c = new PartCoalescer(t.target);
      const parts = feed(c, t.count, t.chunk, (i) => i === 0);
      assert.deepEqual(
        parts.map((p) => round(p.durationSec)),
        t.durations.map(round),
      );
      assert.equal(round(c.ceilingSec()), round(t.ceiling));
      // No part above the ceiling; all but the last at least 85 % of it (RFC 8216bis 4.4.4.9).
      for (const [i, p] of parts.entries()) {
        assert.ok(p.durationSec <= c.ceilingSec() + 1e-9);
        if (i < parts.length - 1) assert.ok(p.durationSec >= 0.85 * c.ceilingSec());
      }
    });
  }

  it("keeps the bytes in order, its chunks' own buffers, and INDEPENDENT from the first chunk", () => {
    const c = new PartCoalescer(0.12);
    const parts = feed(c, 7, 0.04, (i) => i === 0 || i === 4);
    assert.deepEqual(
      parts.map((p) => p.bytes.map((b) => [...b])),
      [[[0], [1], [2]], [[3], [4], [5]], [[6]]],
    );
    assert.deepEqual(
      parts.map((p) => p.byteLength),
      [3, 3, 1],
    );
    assert.deepEqual(
      parts.map((p) => p.independent),
      [true, false, false],
    );
  });

  it("a part is its chunks' pieces themselves, not a copy", () => {
    const c = new PartCoalescer(0.1);
    const read1 = Buffer.from("moof+md");
    const read2 = Buffer.from("at");
    const p = c.add({ pieces: [read1, read2], byteLength: 9 }, 0.5, true);
    assert.equal(p?.bytes.length, 2);
    assert.equal(p?.bytes[0], read1);
    assert.equal(p?.bytes[1], read2);
    assert.equal(p?.byteLength, 9);
  });

  it("holds the chunks of the part in progress until it is complete; reset drops them", () => {
    const c = new PartCoalescer(0.4);
    assert.equal(c.add(wholeChunk(Buffer.from([1])), 0.1, true), undefined);
    assert.equal(c.add(wholeChunk(Buffer.from([2])), 0.1, false), undefined);
    assert.deepEqual(
      c.held().map((b) => [...b]),
      [[1], [2]],
    );
    c.reset();
    assert.equal(c.held().length, 0);
    assert.equal(c.flush(), undefined);
  });

  it("after retarget to the published PART-TARGET, a longer chunk never makes a part above it", () => {
    const c = new PartCoalescer(0.4);
    const first = feed(c, 4, 0.2, (i) => i === 0);
    assert.deepEqual(
      first.map((p) => round(p.durationSec)),
      [0.4, 0.4],
    );
    c.retarget(0.4);
    const later = feed(c, 3, 0.24, () => false);
    for (const p of later) assert.ok(p.durationSec <= 0.4 + 1e-9, `${p.durationSec}`);
    assert.deepEqual(
      later.map((p) => round(p.durationSec)),
      [0.24, 0.24, 0.24],
    );
  });
});
