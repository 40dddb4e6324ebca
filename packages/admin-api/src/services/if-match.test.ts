import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GatewayError } from "@svc/core/errors";
import { checkRevision, etag, parseIfMatch } from "./if-match.js";

describe("If-Match revisions", () => {
  it("parses quoted, bare and absent values", () => {
    const cases: [string | undefined, number | undefined | "invalid"][] = [
      [undefined, undefined],
      ["", undefined],
      ['"3"', 3],
      ["3", 3],
      ['W/"7"', 7],
      ["*", "invalid"],
      ['"0"', "invalid"],
      ['"abc"', "invalid"],
    ];
    for (const [input, want] of cases) assert.equal(parseIfMatch(input), want, String(input));
  });

  it("answers conflict for a missing required, a stale or a malformed revision", () => {
    const conflict = (f: () => void) =>
      assert.throws(
        f,
        (e) => e instanceof GatewayError && e.code === "conflict" && e.status === 409,
      );
    conflict(() => checkRevision(undefined, 2, { required: true }));
    conflict(() => checkRevision('"1"', 2, { required: false }));
    conflict(() => checkRevision("*", 2, { required: false }));
    checkRevision(undefined, 2, { required: false });
    checkRevision('"2"', 2, { required: true });
    assert.equal(etag(5), '"5"');
  });
});
