import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SlabArena } from "./slab-arena.js";

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

describe("SlabArena: a window's media bytes in reused slabs", () => {
  it("copies a part's pieces into one contiguous view, parts side by side in one slab", () => {
    const arena = new SlabArena(1024);
    const pieces = [bytes(10, 1), bytes(20, 2), bytes(5, 3)];
    const a = arena.store(pieces, 35);
    assert.equal(a.length, 35);
    assert.deepEqual(a, Buffer.concat(pieces));
    for (const p of pieces) assert.notEqual(p.buffer, a.buffer, "a copy, not a view of a read");
    const b = arena.store([bytes(40, 4)], 40);
    assert.equal(b.buffer, a.buffer, "the next part goes into the same slab");
    assert.equal(b.byteOffset, a.byteOffset + 35);
    assert.deepEqual(a, Buffer.concat(pieces), "storing the next part leaves the first intact");
  });

  it("reuses a slab only once every part in it is released and it is no longer filled", () => {
    const arena = new SlabArena(4096);
    const [a, b, c, d] = [1, 2, 3, 4].map((i) => arena.store([bytes(1024, i)], 1024));
    for (const x of [a, b, c]) arena.release(x!);
    const e = arena.store([bytes(1024, 5)], 1024);
    assert.notEqual(e.buffer, a!.buffer, "d still holds the first slab");
    assert.equal(arena.freeSlabs(), 0);
    arena.release(d!);
    assert.equal(arena.freeSlabs(), 1, "no reference left: free");
    for (const i of [6, 7, 8]) arena.store([bytes(1024, i)], 1024);
    const next = arena.store([bytes(1024, 9)], 1024);
    assert.equal(next.buffer, a!.buffer, "the free slab is filled again");
    assert.deepEqual(next, bytes(1024, 9));
    assert.deepEqual(e, bytes(1024, 5), "parts still stored are untouched");
  });

  it("keeps a slab an answer holds until the answer gives it back", () => {
    const arena = new SlabArena(4096);
    const stored = [1, 2, 3, 4].map((i) => arena.store([bytes(1024, i)], 1024));
    const a = stored[0]!;
    const done = arena.hold([a, a.subarray(0, 10), stored[1]!]);
    for (const x of stored) arena.release(x);
    for (const i of [5, 6, 7, 8, 9]) arena.store([bytes(1024, i)], 1024);
    assert.equal(arena.freeSlabs(), 0, "held: not free");
    assert.deepEqual(a, bytes(1024, 1), "held bytes are never overwritten");
    done();
    done(); // once only: a second call must not give back another reference
    assert.equal(arena.freeSlabs(), 1);
    for (const i of [10, 11, 12]) arena.store([bytes(1024, i)], 1024);
    const next = arena.store([bytes(1024, 13)], 1024);
    assert.equal(next.buffer, a.buffer, "given back, its memory is used again");
  });

  it("ignores a second release of the same part", () => {
    const arena = new SlabArena(4096);
    const [a, b, c, d] = [1, 2, 3, 4].map((i) => arena.store([bytes(1024, i)], 1024));
    for (const x of [a, a, a, b, c]) arena.release(x!);
    for (const i of [5, 6, 7, 8]) arena.store([bytes(1024, i)], 1024);
    const next = arena.store([bytes(1024, 9)], 1024);
    assert.notEqual(next.buffer, a!.buffer, "d still holds the first slab");
    assert.equal(arena.freeSlabs(), 0);
    assert.deepEqual(d, bytes(1024, 4));
  });

  it("grows its slabs to four parts of the largest seen, and gives a huge part its own buffer", () => {
    const arena = new SlabArena(1024);
    const big = arena.store([bytes(3000, 1)], 3000);
    const next = arena.store([bytes(3000, 2)], 3000);
    assert.equal(big.buffer.byteLength, 16384, "4 x 3000 rounded up to a power of two");
    assert.equal(next.buffer, big.buffer);
    const huge = 9 * 1024 * 1024;
    const own = arena.store([bytes(huge, 3)], huge);
    assert.equal(own.length, huge);
    assert.equal(arena.hold([own])(), undefined, "not pooled: holding it is a no-op");
    arena.release(own);
  });
});
