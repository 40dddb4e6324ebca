import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hostName } from "./host-allowlist.js";

describe("hostName", () => {
  const cases: [string, string][] = [
    ["example.test", "example.test"],
    ["Example.TEST:8080", "example.test"],
    ["[::1]:8080", "::1"],
    ["[::1]", "::1"],
    ["127.0.0.1:80", "127.0.0.1"],
  ];
  for (const [input, expected] of cases) it(input, () => assert.equal(hostName(input), expected));
});
