import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { after, describe, it } from "node:test";
import { serveSessionFile, sessionFileNameProblem } from "./serve-session-file.js";

describe("sessionFileNameProblem", () => {
  const refused = [
    "",
    "../index.m3u8",
    "a/b.ts",
    "a\\b.ts",
    "..",
    "x..m4s",
    "a\0.ts",
    ".pids",
    "x".repeat(256),
  ];
  for (const name of refused)
    it(`refuses ${JSON.stringify(name.slice(0, 20))}`, () =>
      assert.notEqual(sessionFileNameProblem(name), undefined));
  for (const name of ["index.m3u8", "r0-1795330702.m4s", "init-r3.mp4", "r1-7.ts"])
    it(`accepts ${name}`, () => assert.equal(sessionFileNameProblem(name), undefined));
});

describe("serveSessionFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-serve-"));
  const outside = mkdtempSync(join(tmpdir(), "svc-outside-"));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const playlist = '#EXTM3U\n#EXT-X-MAP:URI="init-r0.mp4"\n#EXTINF:2.0,\nr0-5.m4s\n';
  writeFileSync(join(dir, "index.m3u8"), playlist);
  writeFileSync(join(dir, "r0-5.m4s"), Buffer.from([1, 2, 3, 4, 5]));
  writeFileSync(join(dir, "init-r0.mp4"), "init");
  writeFileSync(join(dir, "r0-6.ts"), "ts");
  writeFileSync(join(dir, "r0-7.m4s.tmp"), "partial");
  writeFileSync(join(dir, "empty.m4s"), "");
  writeFileSync(join(outside, "secret.m4s"), "outside");
  symlinkSync(join(outside, "secret.m4s"), join(dir, "link.m4s"));

  const ok: [string, string, string, string][] = [
    ["index.m3u8", "application/vnd.apple.mpegurl", "no-cache", playlist],
    [
      "r0-5.m4s",
      "video/iso.segment",
      "private, max-age=31536000, immutable",
      "\u0001\u0002\u0003\u0004\u0005",
    ],
    ["init-r0.mp4", "video/mp4", "private, max-age=31536000, immutable", "init"],
    ["r0-6.ts", "video/mp2t", "private, max-age=31536000, immutable", "ts"],
    ["empty.m4s", "video/iso.segment", "private, max-age=31536000, immutable", ""],
  ];
  for (const [name, type, cache, body] of ok) {
    it(`serves ${name} with type, cache policy, length and the bytes`, async () => {
      const r = await serveSessionFile(dir, name);
      assert.ok(r.ok);
      assert.deepEqual(r.headers, {
        "content-type": type,
        "cache-control": cache,
        "content-length": String(Buffer.byteLength(body)),
      });
      assert.equal(typeof r.body === "string" ? r.body : await text(r.body), body);
    });
  }
  const missing: [string, number][] = [
    ["nope.m4s", 404],
    ["r0-7.m4s.tmp", 404],
    ["link.m4s", 404],
    ["../outside/secret.m4s", 400],
    ["..%2Findex.m3u8", 400],
  ];
  for (const [name, status] of missing) {
    it(`answers ${status} for ${name}`, async () => {
      const r = await serveSessionFile(dir, name);
      assert.equal(r.ok, false);
      assert.equal(r.status, status);
    });
  }
  it("rewrites the playlist with the caller's query, and only the playlist", async () => {
    const r = await serveSessionFile(dir, "index.m3u8", { playlistQuery: "token=abc" });
    assert.ok(r.ok && typeof r.body === "string");
    assert.equal(
      r.body,
      '#EXTM3U\n#EXT-X-MAP:URI="init-r0.mp4?token=abc"\n#EXTINF:2.0,\nr0-5.m4s?token=abc\n',
    );
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
    const seg = await serveSessionFile(dir, "r0-5.m4s", { playlistQuery: "token=abc" });
    assert.ok(seg.ok && typeof seg.body !== "string");
    seg.body.destroy();
  });
});
