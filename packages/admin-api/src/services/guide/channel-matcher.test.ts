import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Channel } from "@svc/core/catalog";
import { createChannelMatcher } from "./channel-matcher.js";
import type { StoredGuideChannel } from "./guide-data.js";
import { keySimilarity } from "./name-similarity.js";

const gc = (xmltvId: string, ...displayNames: string[]): StoredGuideChannel =>
  ({ sourceId: "s", xmltvId, displayNames, icon: "", present: true }) as StoredGuideChannel;
const ch = (id: string, title: string, extra: Partial<Channel> = {}): Channel =>
  ({ id, title, epg_id: "", epg_source: "", epg_name: "", ...extra }) as Channel;

const matcher = createChannelMatcher(
  [
    gc("BBCOne.uk", "BBC One"),
    gc("BBCOnePlus1.uk", "BBC One +1"),
    gc("E4.uk", "E4"),
    gc("DiscoveryChannel.us", "Discovery Channel"),
    gc("SkySports1.uk", "Sky Sports 1"),
    gc("SilverbirdTV.ng"),
    gc("arte.eu", "ARTE", "77"),
    gc("CNN.us", "CNN"),
  ],
  ["s"],
);

describe("channel matcher: why a match was made", () => {
  const table: [Channel, string | null, string | null][] = [
    [ch("a", "Whatever", { epg_id: "CNN.us" }), "CNN.us", "exact_id"],
    [ch("CNN.us", "BBC One"), "CNN.us", "exact_id"],
    [ch("b", "UK: BBC ONE FHD"), "BBCOne.uk", "exact_name"],
    [ch("c", "|UK| BBC One +1 HD"), "BBCOnePlus1.uk", "exact_name"],
    [ch("d", "E4 +1"), null, null],
    [ch("e", "US: Discovery Chanel HD"), "DiscoveryChannel.us", "fuzzy"],
    [ch("f", "Sky Sports 2"), null, null],
    [ch("g", "NG: Silverbird TV"), "SilverbirdTV.ng", "id_name"],
    [ch("h", "77"), "arte.eu", "lcn"],
    [ch("i", "CNN Brasil"), null, null],
  ];
  for (const [channel, epgId, reason] of table)
    it(`${channel.title} → ${epgId ?? "no match"}`, () => {
      const m = matcher.match(channel);
      assert.equal(m.match?.epg_id ?? null, epgId, JSON.stringify(m));
      assert.equal(m.match?.reason ?? null, reason);
      if (m.match !== undefined) assert.equal(m.match.score === 1, reason !== "fuzzy");
    });

  it("offers a fuzzy candidate below the threshold without applying it", () => {
    const m = matcher.match(ch("j", "Sky Sports 2"));
    assert.equal(m.status, "unmatched");
    const c = m.candidates.find((x) => x.epg_id === "SkySports1.uk");
    assert.ok(c, JSON.stringify(m.candidates));
    assert.equal(c.reason, "fuzzy");
    assert.ok(c.score < 1);
  });

  it("an exact name beats a closer fuzzy one; candidates list exact first", () => {
    const m = matcher.match(ch("k", "BBC One"));
    assert.equal(m.match?.epg_id, "BBCOne.uk");
    assert.deepEqual(
      m.candidates.map((c) => [c.epg_id, c.reason]),
      [
        ["BBCOne.uk", "exact_name"],
        ["BBCOnePlus1.uk", "fuzzy"],
      ],
    );
  });
});

describe("keySimilarity", () => {
  it("is the Dice coefficient of bigrams", () => {
    assert.equal(keySimilarity("abc", "abc"), 1);
    assert.equal(keySimilarity("bbc1", "bbc1london"), 0.5);
    assert.ok(keySimilarity("discoverychanel", "discoverychannel") > 0.9);
    assert.equal(keySimilarity("a", "ab"), 0);
  });
});
