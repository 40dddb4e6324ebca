import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRateLimiter } from "./login-limiter.js";

describe("createRateLimiter", () => {
  it("allows the quota per one-minute window and refuses the next attempt", () => {
    const l = createRateLimiter(3);
    const t = 1_000_000;
    assert.deepEqual(
      [1, 2, 3, 4].map(() => l.take("ip", t)),
      [true, true, true, false],
    );
    assert.equal(l.take("other", t), true);
    assert.equal(l.retryAfterSec("ip", t + 30_000), 30);
    assert.equal(l.take("ip", t + 60_000), true);
  });

  it("stays bounded in keys", () => {
    const l = createRateLimiter(1, 10);
    for (let i = 0; i < 1000; i++) l.take(`k${i}`, 5);
    // the newest keys are still tracked, the oldest were evicted
    assert.equal(l.take("k999", 5), false);
    assert.equal(l.take("k0", 5), true);
  });
});
