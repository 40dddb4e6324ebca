import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { redactPath } from "./log.js";

describe("redactPath", () => {
  const key = `v1${"A".repeat(126)}`;
  const cases: [string, string][] = [
    ["/v1/play/a/index.m3u8?token=eyJabc", "/v1/play/a/index.m3u8"],
    ["/v1/play/a/u/aHR0cA.ts?sig=xyz&token=t", "/v1/play/a/u/aHR0cA.ts"],
    [`/p/${key}/play/a/index.m3u8`, "/p/v1AAAAAAAA…/play/a/index.m3u8"],
    [`/p/${key}`, "/p/v1AAAAAAAA…"],
    ["/p/short/x", "/p/short/x"],
    ["/healthz", "/healthz"],
  ];
  for (const [input, expected] of cases) {
    it(`redacts ${input.slice(0, 30)}`, () => assert.equal(redactPath(input), expected));
  }
});
