import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { languageMatchScore, normalizeLanguage, toBcp47 } from "./language-match.js";

describe("languageMatchScore (BCP 47 / ISO 639)", () => {
  const cases: [string, string | undefined, number][] = [
    ["en", "en", 2],
    ["en", "en-US", 2],
    ["en", "eng", 2],
    ["eng", "en", 2],
    ["EN", "en-us", 2],
    ["de", "ger", 2],
    ["de", "deu", 2],
    ["fr", "fre", 2],
    ["fra", "fr-CA", 2],
    ["zh", "chi", 2],
    ["en-GB", "en-GB", 2],
    ["en-GB", "en-US", 1],
    ["en-GB", "eng", 1],
    ["pt-BR", "pt_BR", 2],
    ["en", "de", 0],
    ["en", undefined, 0],
    ["en", "und", 0],
    ["nl", "dut", 2],
    ["es", "spa", 2],
    ["qaa", "qaa", 2],
  ];
  for (const [wanted, candidate, want] of cases)
    it(`${wanted} vs ${candidate}`, () =>
      assert.equal(languageMatchScore(wanted, candidate), want));
});

describe("normalizeLanguage / toBcp47", () => {
  it("folds ISO 639-2 to 639-1 and keeps the region", () =>
    assert.deepEqual(normalizeLanguage("eng-us"), { language: "en", region: "us", tag: "en-us" }));
  const cases: [string | undefined, string | undefined][] = [
    ["eng", "en"],
    ["deu", "de"],
    ["en_us", "en-US"],
    ["zh-hant-tw", "zh-Hant-TW"],
    ["und", undefined],
    [undefined, undefined],
    ["1x", undefined],
  ];
  for (const [input, want] of cases)
    it(`${input} -> ${want}`, () => assert.equal(toBcp47(input), want));
});
