import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { createInstanceTokens, type ForwardTarget } from "./instance-token.js";

const KEY = Buffer.from("k".repeat(32));
const PLAY = {
  prefix: "https://tv.example/v1/play/news/",
  query: "&token=eyJ.a.b&viewer=v1.x.y",
  client: "203.0.113.9",
  sharedCache: false,
};
const TARGET: ForwardTarget = {
  channelId: "news",
  resource: "live/v0.m3u8",
  search: "?g=5-abc&_HLS_msn=12",
};
const NOW = 1_700_000_000_000;

describe("instance tokens (forwarded play requests)", () => {
  const tokens = createInstanceTokens(KEY);
  const token = tokens.mint(PLAY, TARGET, NOW);

  it("verifies for the request it was minted for and gives the play back", () => {
    assert.match(token, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(tokens.verify(token, TARGET, NOW), PLAY);
    assert.deepEqual(tokens.verify(token, TARGET, NOW + 59_000), PLAY, "within ttl + skew");
  });

  it("refuses any other request, key, time or a changed token", () => {
    const other = createInstanceTokens(Buffer.from("z".repeat(32)));
    const [v, payload = "", mac = ""] = token.split(".");
    const forgedPayload = Buffer.from(
      JSON.stringify({ p: "https://evil/", q: "", a: "x", s: true, e: NOW + 1000 }),
    ).toString("base64url");
    const rows: [string, string, ForwardTarget, number][] = [
      ["another channel", token, { ...TARGET, channelId: "sports" }, NOW],
      ["another file", token, { ...TARGET, resource: "live/v0-12.m4s" }, NOW],
      ["another query", token, { ...TARGET, search: "?g=5-abc&_HLS_msn=13" }, NOW],
      ["expired (ttl 30 s + skew 30 s)", token, TARGET, NOW + 61_000],
      ["minted far in the future", token, TARGET, NOW - 61_000],
      ["another key", other.mint(PLAY, TARGET, NOW), TARGET, NOW],
      ["payload swapped", `${v}.${forgedPayload}.${mac}`, TARGET, NOW],
      ["mac truncated", `${v}.${payload}.${mac.slice(0, 20)}`, TARGET, NOW],
      ["wrong version", `v2.${payload}.${mac}`, TARGET, NOW],
      ["extra part", `${token}.x`, TARGET, NOW],
      ["empty", "", TARGET, NOW],
    ];
    for (const [name, t, target, now] of rows)
      assert.equal(tokens.verify(t, target, now), undefined, name);
  });

  it("refuses a well-signed payload that is not the claims shape", () => {
    // The MAC written out from the format (HMAC-SHA256 under HMAC(signing_key, label)), so
    // only the shape check stands between these payloads and a forwarded play.
    const key = createHmac("sha256", KEY).update("svc instance forward v1").digest();
    const sign = (json: string) => {
      const payload = Buffer.from(json).toString("base64url");
      const mac = createHmac("sha256", key)
        .update(`${payload}\n${TARGET.channelId}\n${TARGET.resource}\n${TARGET.search}`)
        .digest("base64url");
      return `v1.${payload}.${mac}`;
    };
    const good = JSON.stringify({
      p: PLAY.prefix,
      q: PLAY.query,
      a: PLAY.client,
      s: false,
      e: NOW,
    });
    assert.deepEqual(tokens.verify(sign(good), TARGET, NOW), PLAY, "the reference MAC matches");
    const payloads = [
      "[]",
      "null",
      '{"p":1,"q":"","a":"","s":false,"e":1}',
      '{"p":"","q":"","a":"","s":false}',
      '{"p":"","q":"","a":"","s":"yes","e":1}',
      '{"p":"","q":"","a":"","e":1}',
      "{",
    ];
    for (const json of payloads)
      assert.equal(tokens.verify(sign(json), TARGET, NOW), undefined, json);
  });
});
