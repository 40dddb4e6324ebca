import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { claimKeyConnection, createKeyConnections } from "./key-connections.js";

describe("key connections (memory)", () => {
  it("counts pinned and leased seats of a key together, per key", () => {
    const k = createKeyConnections(30_000);
    assert.equal(k.hold("a", "s1", 2, true, 0), "held");
    assert.equal(k.hold("a", "lease1", 2, false, 0), "held");
    assert.equal(k.hold("a", "s2", 2, true, 0), "full");
    assert.equal(k.hold("b", "s2", 2, true, 0), "held", "another key has its own seats");
    // A seat already held renews, even when the key is full.
    assert.equal(k.hold("a", "lease1", 2, false, 10_000), "held");
    assert.equal(k.active("a", 10_000), 2);
  });

  it("a lease lapses after the TTL without renewal; a pinned seat only when released", () => {
    const k = createKeyConnections(30_000);
    k.hold("a", "pinned", 2, true, 0);
    k.hold("a", "lease", 2, false, 0);
    assert.equal(k.active("a", 29_999), 2);
    assert.equal(k.active("a", 30_000), 1, "the lease lapsed");
    assert.equal(k.active("a", 10_000_000), 1, "the pinned seat stays");
    assert.equal(k.hold("a", "other", 2, false, 30_000), "held");
    k.release("a", "pinned");
    assert.equal(k.active("a", 30_000), 1);
  });

  it("claimKeyConnection gives a release that frees the seat once", async () => {
    const k = createKeyConnections();
    const first = await claimKeyConnection(k, { keyId: "a", max: 1 });
    assert.equal(first.kind, "held");
    assert.equal((await claimKeyConnection(k, { keyId: "a", max: 1 })).kind, "full");
    if (first.kind !== "held") return;
    first.release();
    first.release();
    const again = await claimKeyConnection(k, { keyId: "a", max: 1 });
    assert.equal(again.kind, "held");
    assert.equal(k.active("a"), 1);
  });
});
