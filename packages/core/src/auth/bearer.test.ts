import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bearerFromHeader, isApiTokenShape, playbackCredential } from "./bearer.js";

describe("bearer credentials", () => {
  it("reads the Bearer scheme case-insensitively", () => {
    assert.equal(bearerFromHeader("Bearer abc.def"), "abc.def");
    assert.equal(bearerFromHeader("bearer abc"), "abc");
    assert.equal(bearerFromHeader("Basic abc"), undefined);
    assert.equal(bearerFromHeader("Bearer "), undefined);
    assert.equal(bearerFromHeader(undefined), undefined);
  });
  it("gives ?token= precedence over the header", () => {
    assert.equal(playbackCredential("q", "Bearer h"), "q");
    assert.equal(playbackCredential(undefined, "Bearer h"), "h");
    assert.equal(playbackCredential("", "Bearer h"), "h");
  });
  it("recognises the API token shape", () => {
    assert.equal(isApiTokenShape(`svc_v1_${"a".repeat(48)}`), true);
    assert.equal(isApiTokenShape("eyJhbGciOi"), false);
  });
});
