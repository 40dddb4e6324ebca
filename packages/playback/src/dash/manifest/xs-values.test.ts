import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  parseDouble,
  parseFrameRate,
  parseUnsignedBig,
  parseXsBoolean,
  parseXsDateTime,
  parseXsDuration,
} from "./xs-values.js";

describe("parseXsDuration", () => {
  const cases: [string, number | undefined][] = [
    ["PT2S", 2],
    ["PT0.5S", 0.5],
    ["PT1M2.5S", 62.5],
    ["PT1H", 3600],
    ["P1DT1S", 86401],
    ["PT30M0S", 1800],
    ["-PT1S", -1],
    ["P", undefined],
    ["PT", undefined],
    ["2S", undefined],
    ["PT1.S", undefined],
    ["", undefined],
  ];
  for (const [input, want] of cases)
    it(JSON.stringify(input), () => assert.equal(parseXsDuration(input), want));
});

describe("parseXsDateTime", () => {
  const cases: [string, number | undefined][] = [
    ["2024-01-01T00:00:00Z", Date.UTC(2024, 0, 1)],
    ["2024-01-01T00:00:00", Date.UTC(2024, 0, 1)],
    ["2024-01-01T01:00:00+01:00", Date.UTC(2024, 0, 1)],
    ["2024-01-01T00:00:00.123456Z", Date.UTC(2024, 0, 1) + 123],
    ["2024-01-01", undefined],
    ["yesterday", undefined],
  ];
  for (const [input, want] of cases) it(input, () => assert.equal(parseXsDateTime(input), want));
});

describe("parseFrameRate", () => {
  const cases: [string, number | undefined][] = [
    ["25", 25],
    ["30000/1001", 30000 / 1001],
    ["50/2", 25],
    ["30/0", undefined],
    // Not a FrameRateType, but written by packagers: read as a decimal (issue 12 item 11).
    ["29.97", 29.97],
    ["30.0", 30],
    ["30.", undefined],
    ["-30", undefined],
  ];
  for (const [input, want] of cases)
    it(input, () => assert.equal(parseFrameRate(input)?.fps, want));
});

describe("scalar helpers", () => {
  it("xs:boolean", () =>
    assert.deepEqual(["true", "0", "yes"].map(parseXsBoolean), [true, false, undefined]));
  it("unsigned big beyond 2^53", () =>
    assert.equal(parseUnsignedBig("18446744073709551615"), 18446744073709551615n));
  it("double with INF", () =>
    assert.deepEqual(["INF", "1.5", "-2e1", "x"].map(parseDouble), [
      Infinity,
      1.5,
      -20,
      undefined,
    ]));
});
