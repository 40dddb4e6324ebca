import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BACKLOG_BATCHES, createWriteBehindQueue } from "./write-behind-queue.js";

/** A writer whose writes finish only when the test says so (PostgreSQL's shape). */
function gatedWriter() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  return {
    batches,
    write: (b: readonly number[]) =>
      new Promise<void>((resolve) => {
        batches.push([...b]);
        gates.push(resolve);
      }),
    /** Finishes the oldest unfinished write. */
    release: () => gates.shift()?.(),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("write-behind queue", () => {
  it("writes nothing until flushed, then one batch in order", async () => {
    const batches: number[][] = [];
    const q = createWriteBehindQueue<number>({
      write: (b) => void batches.push([...b]),
      flushIntervalMs: 60_000,
    });
    q.push(1);
    q.push(2);
    assert.equal(q.size, 2);
    assert.deepEqual(batches, []);
    assert.equal(await q.flush(), 2);
    assert.deepEqual(batches, [[1, 2]]);
    assert.equal(await q.flush(), 0);
    await q.close();
  });

  it("flushes inline when full so it never holds more than maxItems", async () => {
    const batches: number[][] = [];
    const q = createWriteBehindQueue<number>({
      write: (b) => void batches.push([...b]),
      maxItems: 3,
      flushIntervalMs: 60_000,
    });
    for (let i = 0; i < 7; i++) q.push(i);
    // A synchronous writer has written when push returns.
    assert.deepEqual(batches, [
      [0, 1, 2],
      [3, 4, 5],
    ]);
    assert.equal(q.size, 1);
    await q.close();
    assert.deepEqual(batches[2], [6]);
  });

  it("reports a failed batch and keeps accepting", async () => {
    const errors: number[] = [];
    let fail = true;
    const written: number[] = [];
    const q = createWriteBehindQueue<number>({
      write: async (b) => {
        if (fail) throw new Error("disk full");
        written.push(...b);
      },
      onError: (_e, n) => errors.push(n),
      flushIntervalMs: 60_000,
    });
    q.push(1);
    assert.equal(await q.flush(), 0);
    fail = false;
    q.push(2);
    await q.close();
    assert.deepEqual(errors, [1]);
    assert.deepEqual(written, [2]);
  });

  it("writes directly after close", async () => {
    const written: number[] = [];
    const q = createWriteBehindQueue<number>({ write: (b) => void written.push(...b) });
    await q.close();
    q.push(9);
    assert.deepEqual(written, [9]);
  });

  it("runs asynchronous writes one at a time, in order, and a flush waits for the one in flight", async () => {
    const w = gatedWriter();
    const q = createWriteBehindQueue<number>({
      write: w.write,
      maxItems: 2,
      flushIntervalMs: 60_000,
    });
    q.push(1);
    q.push(2); // full: the first write starts
    q.push(3);
    q.push(4); // full again, but a write is in flight: it waits
    assert.deepEqual(w.batches, [[1, 2]]);
    let flushed: number | undefined;
    const f = q.flush().then((n) => {
      flushed = n;
    });
    await tick();
    assert.equal(flushed, undefined, "the flush waits for the write in flight");
    w.release();
    await tick();
    assert.deepEqual(w.batches, [
      [1, 2],
      [3, 4],
    ]);
    assert.equal(flushed, undefined, "and for its own batch");
    w.release();
    await f;
    assert.equal(flushed, 4);
    await q.close();
  });

  it("bounds the backlog behind a slow writer and reports what it dropped", async () => {
    const w = gatedWriter();
    const dropped: number[] = [];
    const q = createWriteBehindQueue<number>({
      write: w.write,
      maxItems: 2,
      flushIntervalMs: 60_000,
      onError: (_e, n) => dropped.push(n),
    });
    const total = 2 + 2 * BACKLOG_BATCHES + 5;
    for (let i = 0; i < total; i++) q.push(i);
    assert.equal(q.size, 2 * BACKLOG_BATCHES);
    w.release();
    await tick();
    // The next write takes the whole backlog and reports the overflow.
    assert.equal(w.batches[1]?.length, 2 * BACKLOG_BATCHES);
    assert.deepEqual(dropped, [5]);
    w.release();
    await q.close();
  });
});
