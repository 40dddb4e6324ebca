import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseLiveFile } from "./live-file-name.js";

describe("parseLiveFile", () => {
  const good: [string, unknown][] = [
    ["v0.m3u8", { kind: "playlist", rendition: "v0" }],
    ["a1.m3u8", { kind: "playlist", rendition: "a1" }],
    ["v0-init-0.mp4", { kind: "map", rendition: "v0", index: 0 }],
    ["a0-123.m4s", { kind: "segment", rendition: "a0", msn: 123 }],
    ["v0-123.4.m4s", { kind: "part", rendition: "v0", msn: 123, part: 4 }],
  ];
  for (const [name, want] of good)
    it(`reads ${name}`, () => assert.deepEqual(parseLiveFile(name), want));

  const bad = [
    "",
    "..",
    "../v0.m3u8",
    "v0.m3u8/..",
    "v0\\1.m4s",
    "v0\u0000.m3u8",
    "v1.m3u8",
    "x0.m3u8",
    "v0-1.m4s.tmp",
    "v0--1.m4s",
    "v0-1..m4s",
    "v0-init-.mp4",
    "index.m3u8",
    "V0.m3u8",
    "v0-1234567890123456.m4s",
  ];
  for (const name of bad)
    it(`refuses ${JSON.stringify(name)}`, () => assert.equal(parseLiveFile(name), undefined));
});
