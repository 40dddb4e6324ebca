import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GatewayError } from "../base/errors.js";
import { createBoundedWork } from "./bounded-work.js";
import { hashSlots } from "./passwords.js";

/** A job that finishes when the test says so. */
function gate() {
  let open = () => {};
  const done = new Promise<void>((r) => {
    open = r;
  });
  return { job: () => done, open };
}

describe("createBoundedWork", () => {
  it("runs `slots` jobs at once, queues `queue` more, refuses the rest with 429 and Retry-After", async () => {
    const work = createBoundedWork({ slots: 2, queue: 1, refusal: "busy" });
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g) => work.run(g.job));
    assert.deepEqual(work.load(), { running: 2, waiting: 1 });
    await assert.rejects(work.run(gate().job), (err: unknown) => {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.code, "too_many_requests");
      assert.equal(err.status, 429);
      assert.match(err.headers?.["Retry-After"] ?? "", /^[1-9]\d*$/);
      return true;
    });
    gates[0]!.open();
    await runs[0];
    // The freed slot went to the queued job.
    assert.deepEqual(work.load(), { running: 2, waiting: 0 });
    gates[1]!.open();
    gates[2]!.open();
    await Promise.all(runs);
    assert.deepEqual(work.load(), { running: 0, waiting: 0 });
  });

  it("frees the slot of a job that throws", async () => {
    const work = createBoundedWork({ slots: 1, queue: 0, refusal: "busy" });
    await assert.rejects(
      work.run(() => Promise.reject(new Error("boom"))),
      /boom/,
    );
    assert.equal(await work.run(async () => 7), 7);
  });
});

describe("hashSlots", () => {
  const cases: [cores: number, pool: number, slots: number][] = [
    [2, 4, 2],
    [8, 4, 3],
    [1, 4, 1],
    [16, 64, 16],
    [4, 1, 1],
  ];
  for (const [cores, pool, slots] of cases)
    it(`${cores} cores, ${pool} threads: ${slots}`, () =>
      assert.equal(hashSlots(cores, pool), slots));
});
