import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createWriteBehindQueue } from "./write-behind-queue.js";

describe("write-behind queue", () => {
  it("writes nothing until flushed, then one batch in order", () => {
    const batches: number[][] = [];
    const q = createWriteBehindQueue<number>({
      write: (b) => batches.push([...b]),
      flushIntervalMs: 60_000,
    });
    q.push(1);
    q.push(2);
    assert.equal(q.size, 2);
    assert.deepEqual(batches, []);
    assert.equal(q.flush(), 2);
    assert.deepEqual(batches, [[1, 2]]);
    assert.equal(q.flush(), 0);
    q.close();
  });

  it("flushes inline when full so it never holds more than maxItems", () => {
    const batches: number[][] = [];
    const q = createWriteBehindQueue<number>({
      write: (b) => batches.push([...b]),
      maxItems: 3,
      flushIntervalMs: 60_000,
    });
    for (let i = 0; i < 7; i++) q.push(i);
    assert.deepEqual(batches, [
      [0, 1, 2],
      [3, 4, 5],
    ]);
    assert.equal(q.size, 1);
    q.close();
    assert.deepEqual(batches[2], [6]);
  });

  it("reports a failed batch and keeps accepting", () => {
    const errors: number[] = [];
    let fail = true;
    const written: number[] = [];
    const q = createWriteBehindQueue<number>({
      write: (b) => {
        if (fail) throw new Error("disk full");
        written.push(...b);
      },
      onError: (_e, n) => errors.push(n),
      flushIntervalMs: 60_000,
    });
    q.push(1);
    q.flush();
    fail = false;
    q.push(2);
    q.close();
    assert.deepEqual(errors, [1]);
    assert.deepEqual(written, [2]);
  });

  it("writes directly after close", () => {
    const written: number[] = [];
    const q = createWriteBehindQueue<number>({ write: (b) => written.push(...b) });
    q.close();
    q.push(9);
    assert.deepEqual(written, [9]);
  });
});
