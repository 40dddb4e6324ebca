import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ingressOfUrl } from "./import-entry.js";

describe("ingressOfUrl", () => {
  for (const [url, ingress] of [
    ["http://p.example/live/u/p/1234.ts", "ts"],
    ["http://p.example/ch/feed.TS?token=x", "ts"],
    ["http://p.example/live/u/p/1234", "ts"],
    ["http://p.example/live/news", "ts"],
    ["http://p.example/user/pass/1234", "ts"],
    ["http://p.example/live/u/p/1234.m3u8", "hls"],
    ["http://p.example/hls/channel/playlist", "hls"],
    ["http://p.example/user/pass/1234/", "hls"],
    ["http://p.example/a/b/c/1234", "hls"],
    ["http://p.example/stream", "hls"],
    ["http://p.example/manifest.mpd", "dash"],
    ["http://p.example/live/manifest.mpd", "dash"],
  ] as const)
    it(`${url} → ${ingress}`, () => {
      assert.equal(ingressOfUrl(new URL(url)), ingress);
    });
});
