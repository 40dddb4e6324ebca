import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { epgListings } from "./player-api.js";
import { categoryIdOf, preferredStreamId, StreamIds } from "./stream-ids.js";

describe("Xtream stream ids", () => {
  const ids = (list: string[]) => new StreamIds(list.map((id) => ({ id })));

  it("depend on the channel id alone: order and other channels change nothing", () => {
    const a = ids(["news", "sport", "films"]);
    const b = ids(["films", "news", "kids", "sport"]);
    for (const id of ["news", "sport", "films"]) {
      assert.equal(a.of(id), b.of(id));
      assert.equal(a.of(id), preferredStreamId(id));
      assert.equal(a.channel(a.of(id)!), id);
    }
  });

  it("are 31-bit positive integers", () => {
    for (const id of ["", "a", "x".repeat(500), "Ünïcødé"]) {
      const n = preferredStreamId(id);
      assert.ok(Number.isInteger(n) && n >= 1 && n <= 0x7fff_ffff, id);
    }
  });

  it("tell a hash collision apart by probing in channel-id order", () => {
    // Two ids with the same hash: the birthday bound finds one within ~60,000 tries.
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined && i < 1_000_000; i++) {
      const id = `c${i}`;
      const other = seen.get(preferredStreamId(id));
      if (other !== undefined) pair = [other, id];
      seen.set(preferredStreamId(id), id);
    }
    assert.ok(pair, "a colliding pair");
    const [first, second] = [...pair].sort() as [string, string];
    const both = ids([second, first]);
    assert.equal(both.of(first), preferredStreamId(first));
    assert.equal(both.of(second), (preferredStreamId(first) % 0x7fff_ffff) + 1);
  });

  it('give each channel group a stable category id string; no group is "1"', () => {
    assert.equal(categoryIdOf(""), "1");
    assert.equal(categoryIdOf("News"), categoryIdOf("News"));
    assert.notEqual(categoryIdOf("News"), categoryIdOf("Sports"));
    assert.match(categoryIdOf("News"), /^[0-9]+$/);
  });
});

describe("Xtream short EPG entries", () => {
  const ch = { id: "news" } as Parameters<typeof epgListings>[1];
  const rows = [
    { start: 1000, stop: 2000, body: '<title lang="en">A &amp; B</title><desc>Été</desc>' },
    { start: 2000, stop: 3000, body: "<title>Next</title>" },
  ];

  it("base64 titles and descriptions of their text, times as strings, now and next", () => {
    const [now, next] = epgListings(rows, ch, 7, { short: true, limit: 4, now: 1500_000 });
    assert.equal(Buffer.from(now!.title, "base64").toString(), "A & B");
    assert.equal(Buffer.from(now!.description, "base64").toString(), "Été");
    assert.equal(now!.lang, "en");
    assert.equal(now!.start, "1970-01-01 00:16:40");
    assert.equal(now!.start_timestamp, "1000");
    assert.equal(now!.epg_id, "7");
    assert.equal(Buffer.from(next!.description, "base64").toString(), "");
  });

  it("the data table lists all with now_playing", () => {
    const all = epgListings(rows, ch, 7, { short: false, limit: 4, now: 2500_000 });
    assert.deepEqual(
      all.map((e) => ("now_playing" in e ? e.now_playing : -1)),
      [0, 1],
    );
    assert.equal(epgListings(rows, ch, 7, { short: true, limit: 4, now: 2500_000 }).length, 1);
  });
});
