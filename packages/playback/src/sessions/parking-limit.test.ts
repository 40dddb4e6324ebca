import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clientKey, createParkingLimit } from "./parking-limit.js";

describe("parking limit per client", () => {
  it("admits up to the limit per client, and again after a release", () => {
    const limit = createParkingLimit(2);
    const a1 = limit.enter("127.0.0.1");
    const a2 = limit.enter("127.0.0.1");
    assert.ok(a1 && a2);
    assert.equal(limit.enter("127.0.0.1"), undefined);
    assert.ok(limit.enter("127.0.0.2"), "another client has its own count");
    a1();
    a1(); // a second release does not free another slot
    assert.ok(limit.enter("127.0.0.1"));
    assert.equal(limit.enter("127.0.0.1"), undefined);
    assert.equal(limit.parked(), 3);
  });
  it("counts IPv6 clients per /64", () => {
    const rows: [string, string][] = [
      ["::1", "0:0:0:0::/64"],
      ["2001:db8:1:2::5", "2001:db8:1:2::/64"],
      ["2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
      ["127.0.0.1", "127.0.0.1"],
    ];
    for (const [address, key] of rows) assert.equal(clientKey(address), key, address);
    const limit = createParkingLimit(1);
    assert.ok(limit.enter("2001:db8:1:2::5"));
    assert.equal(limit.enter("2001:db8:1:2:ffff::9"), undefined);
  });
});
