import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Channel } from "@svc/core/catalog";
import { createChannelMatcher } from "./channel-matcher.js";
import type { StoredGuideChannel } from "./guide-data.js";
import { matchListJson } from "./match-list-json.js";

const gc = (xmltvId: string, name: string, icon = ""): StoredGuideChannel =>
  ({ sourceId: "s", xmltvId, displayNames: [name], icon, present: true }) as StoredGuideChannel;
const ch = (id: string, title: string): Channel =>
  ({ id, title, epg_id: "", epg_source: "", epg_name: "" }) as Channel;

describe("matchListJson", () => {
  const matcher = createChannelMatcher(
    [gc("BBCOne.uk", "BBC One", "http://127.0.0.1:9/bbc1.png"), gc("E4.uk", "E4")],
    ["s"],
  );
  const titles = ["BBC One HD", "E4", "Nothing like it", 'Quote " and \u2028 line'];
  for (const n of [0, 1, 255, 256, 257, 600]) {
    it(`${n} channels: the bytes of the whole answer stringified at once`, () => {
      const channels = Array.from({ length: n }, (_, i) => ch(`c${i}`, titles[i % titles.length]!));
      // Every seventh channel has no entry in the matching (listed as unmatched).
      const byChannel = new Map(
        channels.filter((_, i) => i % 7 !== 3).map((c) => [c.id, matcher.match(c)]),
      );
      const logos = (c: Channel) => (c.id.endsWith("2") ? [{ source: "x", url: `u/${c.id}` }] : []);
      const whole = JSON.stringify({
        matches: channels.map((c) => {
          const m = byChannel.get(c.id);
          return {
            channel_id: c.id,
            status: m?.status ?? "unmatched",
            ...(m?.match === undefined ? {} : { match: m.match }),
            candidates: m?.candidates ?? [],
            logo_candidates: logos(c),
          };
        }),
      });
      const pieces = [...matchListJson(channels, byChannel, logos)];
      assert.equal(pieces.join(""), whole);
      assert.equal(JSON.parse(pieces.join("")).matches.length, n);
      // One piece per 256 channels, besides the opening and the closing.
      assert.equal(pieces.length, 2 + Math.ceil(n / 256));
    });
  }
});
