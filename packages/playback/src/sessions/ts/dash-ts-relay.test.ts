import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { endOf } from "./dash-ts-relay.js";

describe("endOf (failover's label of a native DASH packager's message)", () => {
  for (const [message, reason, unplayable] of [
    ["MPD: upstream answered 404", "http_error", false],
    ["segment 12: upstream answered 500", "http_error", false],
    ["init segment: upstream answered 403", "http_error", false],
    ["MPD: timeout", "connect_error", false],
    ["segment 7: connect ECONNREFUSED 127.0.0.1:9", "connect_error", false],
    ["MPD #document: unexpected end", "not_media", true],
    ["segment 12 moof: truncated box", "not_media", false],
    ["representation has no initialization segment", "not_media", false],
  ] as const) {
    it(`${message} → ${reason}`, () => {
      const end = endOf(message, unplayable);
      assert.equal(end.reason, reason);
      assert.equal(end.config, undefined);
    });
  }

  it("a missing ClearKey key is a configuration error (no switch)", () => {
    const end = endOf(
      "representation v1: no key is configured for KID 0123456789abcdef0123456789abcdef",
    );
    assert.equal(end.config, true);
  });
});
