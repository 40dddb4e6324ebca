import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createViewerLeases } from "./viewer-leases.js";

describe("viewer leases", () => {
  const key = Buffer.from("lease-test-key");

  it("mints up to the limit, renews, and frees a seat when a lease lapses", () => {
    const leases = createViewerLeases(key, 1_000);
    const a = leases.admit("ch", "cred", 2, undefined, 0);
    const b = leases.admit("ch", "cred", 2, undefined, 0);
    assert.equal(a.kind, "minted");
    assert.equal(b.kind, "minted");
    assert.equal(leases.admit("ch", "cred", 2, undefined, 10).kind, "full");
    assert.equal(leases.active("ch", 10), 2);
    // a keeps polling, b stops: after b's lease lapses a newcomer gets its seat.
    assert.equal(
      leases.admit("ch", "cred", 2, a.kind === "minted" ? a.lease : "", 900).kind,
      "renewed",
    );
    assert.equal(leases.admit("ch", "cred", 2, undefined, 1_500).kind, "minted");
    assert.equal(leases.active("ch", 1_500), 2);
  });

  it("refuses forged, altered and foreign-channel leases", () => {
    const leases = createViewerLeases(key);
    const minted = leases.admit("ch", "cred", 5, undefined);
    assert.ok(minted.kind === "minted");
    const [id, sig] = minted.lease.split(".") as [string, string];
    const other = createViewerLeases(Buffer.from("other-key")).admit("ch", "cred", 5, undefined);
    assert.ok(other.kind === "minted");
    const bad = [
      `${id}.${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`,
      `${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}.${sig}`,
      other.lease,
      "garbage",
      "",
    ];
    for (const lease of bad)
      assert.equal(leases.admit("ch", "cred", 5, lease).kind, "bad_signature", lease);
    assert.equal(leases.admit("other-channel", "cred", 5, minted.lease).kind, "bad_signature");
    // Issue 12 item 7: a lease is bound to the credential that minted it.
    assert.equal(leases.admit("ch", "another credential", 5, minted.lease).kind, "bad_signature");
    assert.equal(leases.admit("ch", "cred", 5, minted.lease).kind, "renewed");
  });

  it("does not readmit a lapsed lease over the limit", () => {
    const leases = createViewerLeases(key, 100);
    const a = leases.admit("ch", "cred", 1, undefined, 0);
    assert.ok(a.kind === "minted");
    assert.equal(leases.admit("ch", "cred", 1, undefined, 200).kind, "minted");
    assert.equal(leases.admit("ch", "cred", 1, a.lease, 250).kind, "full");
  });
});
