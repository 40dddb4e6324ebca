import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMissCatchUp } from "./credential-catch-up.js";

/** A catch-up the test finishes by hand; `starts` counts the ones begun. */
function manualCatchUp() {
  const pending: (() => void)[] = [];
  const state = { starts: 0 };
  const catchUp = () =>
    new Promise<void>((resolve) => {
      state.starts++;
      pending.push(resolve);
    });
  const finishOne = () => pending.shift()?.();
  return { state, catchUp, finishOne, pending };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("credential miss catch-up (issue 30 item 11)", () => {
  it("folds the misses that arrive before a catch-up starts into that one", async () => {
    const m = manualCatchUp();
    let runs = 0;
    const missed = createMissCatchUp(m.catchUp, { minIntervalMs: 0, onRun: () => runs++ });
    const waits = Array.from({ length: 50 }, () => missed());
    await turn();
    assert.equal(m.state.starts, 1);
    m.finishOne();
    await Promise.all(waits);
    assert.equal(runs, 1);
  });

  it("a miss during a catch-up waits for the next one, which starts after it", async () => {
    const m = manualCatchUp();
    const missed = createMissCatchUp(m.catchUp, { minIntervalMs: 0 });
    const order: string[] = [];
    const first = missed().then(() => order.push("first"));
    await turn();
    assert.equal(m.state.starts, 1);
    // The first read may predate this miss's write: it must not settle this miss.
    const second = missed().then(() => order.push("second"));
    const third = missed().then(() => order.push("third"));
    m.finishOne();
    await first;
    await turn();
    assert.deepEqual(order, ["first"]);
    assert.equal(m.state.starts, 2, "one more catch-up for both later misses");
    m.finishOne();
    await Promise.all([second, third]);
    assert.deepEqual(order, ["first", "second", "third"]);
  });

  it("a failed catch-up still releases the waiting misses", async () => {
    const missed = createMissCatchUp(() => Promise.reject(new Error("db down")), {
      minIntervalMs: 0,
    });
    await Promise.all([missed(), missed()]);
  });

  it("a flood of misses starts catch-ups at most one per interval", async () => {
    let runs = 0;
    const missed = createMissCatchUp(async () => {}, { minIntervalMs: 50, onRun: () => runs++ });
    const t0 = performance.now();
    const waits: Promise<void>[] = [];
    while (performance.now() - t0 < 300) {
      waits.push(missed());
      await turn();
    }
    await Promise.all(waits);
    const elapsed = performance.now() - t0;
    // Starts are 50 ms apart at least: no more than elapsed / 50 + 1 of them.
    assert.ok(runs <= Math.floor(elapsed / 50) + 1, `${runs} catch-ups in ${elapsed} ms`);
    assert.ok(runs >= 2, `${runs} catch-ups`);
    assert.ok(waits.length > runs * 5, `${waits.length} misses, ${runs} catch-ups`);
  });
});
