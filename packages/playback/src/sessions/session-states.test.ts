import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canTransition, restartBackoffMs, TRANSITIONS } from "./session-states.js";

describe("session states", () => {
  it("allows exactly the documented transitions", () => {
    const allowed = Object.entries(TRANSITIONS).flatMap(([from, tos]) =>
      tos.map((to) => `${from}→${to}`),
    );
    assert.deepEqual(allowed.sort(), [
      "failed→starting",
      "failed→stopping",
      "running→failed",
      "running→stalled",
      "running→stopping",
      "stalled→failed",
      "stalled→running",
      "stalled→stopping",
      "starting→failed",
      "starting→running",
      "starting→stopping",
    ]);
    assert.equal(canTransition("stopping", "starting"), false);
    assert.equal(canTransition("starting", "stalled"), false);
  });

  it("backs off exponentially from 1 s to a 30 s cap", () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 20].map(restartBackoffMs),
      [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    );
  });
});
