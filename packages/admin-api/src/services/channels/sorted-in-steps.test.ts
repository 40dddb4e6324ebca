import assert from "node:assert/strict";
import { it } from "node:test";
import { runToEnd } from "@svc/core/time-slices";
import { sortedInSteps } from "./sorted-in-steps.js";

interface Item {
  readonly key: number;
  readonly at: number;
}
const byKey = (a: Item, b: Item) => a.key - b.key;

it("sorts like Array.prototype.sort, stably, around the run and merge boundaries", () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed;
  };
  for (const n of [0, 1, 2, 1023, 1024, 1025, 2048, 3000, 5121]) {
    // Few distinct keys, so that stability is tested: equal keys keep their input order.
    const items: Item[] = Array.from({ length: n }, (_, at) => ({ key: random() % 50, at }));
    const expected = [...items].sort(byKey);
    let yields = 0;
    const steps = sortedInSteps(items, byKey);
    let step = steps.next();
    while (step.done !== true) {
      yields += 1;
      step = steps.next();
    }
    assert.deepEqual(step.value, expected, `n=${n}`);
    assert.deepEqual(runToEnd(sortedInSteps(items, byKey)), expected);
    assert.equal(items.length, n, "the input is left as it was");
    if (n > 2048) assert.ok(yields > n / 1024, `n=${n}: ${yields} yields`);
  }
});
