import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createInstanceTokens } from "./instance-token.js";
import { createSessionStopTokens } from "./session-stop-token.js";

describe("session stop tokens", () => {
  const key = randomBytes(32);
  const tokens = createSessionStopTokens(key);
  const now = 1_800_000_000_000;

  it("verifies for its channel within its lifetime, and for nothing else", () => {
    const t = tokens.mint("news", now);
    assert.match(t, /^s1\.[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    const cases: [string, string, number, boolean][] = [
      ["same channel, at once", "news", now, true],
      ["same channel, 59 s later (30 s + 30 s skew)", "news", now + 59_000, true],
      ["same channel, 61 s later", "news", now + 61_000, false],
      ["another channel", "sport", now, false],
      ["a prefix of the channel id", "new", now, false],
    ];
    for (const [what, channel, at, ok] of cases)
      assert.equal(tokens.verify(t, channel, at), ok, what);
  });

  it("refuses forged, altered and foreign tokens", () => {
    const t = tokens.mint("news", now);
    const [, expiry, sig] = t.split(".");
    const later = (Number.parseInt(expiry!, 36) + 600_000).toString(36);
    const cases: [string, string][] = [
      ["another cluster's key", createSessionStopTokens(randomBytes(32)).mint("news", now)],
      ["a moved expiry", `s1.${later}.${sig}`],
      ["another version", `s2.${expiry}.${sig}`],
      ["no mac", `s1.${expiry}.`],
      ["garbage", "s1"],
      [
        "a play token",
        createInstanceTokens(key).mint(
          {
            prefix: "http://127.0.0.1/v1/play/news/",
            query: "",
            client: "127.0.0.1",
            sharedCache: false,
          },
          { channelId: "news", resource: "index.m3u8", search: "" },
          now,
        ),
      ],
    ];
    for (const [what, token] of cases) assert.equal(tokens.verify(token, "news", now), false, what);
  });
});
