import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nameKey, slugName, snpName } from "./name-normalizer.js";

describe("nameKey: real-world channel-name variants", () => {
  const groups: [string, string[]][] = [
    [
      "bbc1",
      [
        "BBC One",
        "BBC ONE HD",
        "UK: BBC One FHD",
        "|UK| BBC One",
        "bbc.one",
        "BBC 1",
        "BBC One (UK)",
        "[UK] BBC One HD",
      ],
    ],
    [
      "daserste",
      ["Das Erste", "Das Erste HD", "DE: Das Erste", "Das Erste (DE)", "DAS ERSTE 1080p"],
    ],
    ["telequebec", ["Télé-Québec", "Tele Quebec", "TELE-QUEBEC HD"]],
    [
      "skysportsf1",
      ["Sky Sports F1", "Sky Sports F1 UHD", "SKY SPORTS F1 (UK)", "Sky Sports F1 4K"],
    ],
    ["canalplus", ["Canal+", "CANAL+ HD", "FR: Canal +", "Canal Plus"]],
    ["atandt", ["AT&T", "AT & T", "AT and T"]],
    ["cnninternational", ["CNN International", "UK - CNN International HD"]],
  ];
  for (const [key, names] of groups) {
    for (const n of names) it(`${n} → ${key}`, () => assert.equal(nameKey(n), key));
  }
  it("keeps a name that is only a tag", () => {
    assert.equal(nameKey("UK"), "uk");
    assert.equal(nameKey("HD"), "hd");
  });
  it("keeps different channels apart", () => {
    assert.notEqual(nameKey("BBC One"), nameKey("BBC Two"));
    assert.notEqual(nameKey("Sky Sports F1"), nameKey("Sky Sports News"));
  });
});

describe("repository names", () => {
  it("snp and slug", () => {
    assert.equal(snpName("Canal+ Sport & Más"), "canalplussportandmas");
    assert.equal(slugName("Canal+ Sport & Más"), "canal-plus-sport-and-mas");
  });
});
