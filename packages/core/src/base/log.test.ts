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
    ["/live/anna/Secret123/7.ts", "/live/anna/***/7.ts"],
    [
      "/live/anna/Secret123/play/ch1/live/seg_5.ts?viewer=x",
      "/live/anna/***/play/ch1/live/seg_5.ts",
    ],
    ["/anna/Secret123/7", "/anna/***/7"],
    ["/v1/play/7", "/v1/play/7"],
    ["/player_api.php?username=anna&password=Secret123", "/player_api.php"],
  ];
  for (const [input, expected] of cases) {
    it(`redacts ${input.slice(0, 30)}`, () => assert.equal(redactPath(input), expected));
  }
});
