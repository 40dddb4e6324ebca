import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createUpstreamSigner, signedExtension, targetExtension } from "./upstream-signer.js";

const signer = createUpstreamSigner(Buffer.from("test-key-0123456789"));
const other = createUpstreamSigner(Buffer.from("another-key"));

function split(signed: string): { segment: string; sig: string } {
  const m = /^u\/([^?]+)\?sig=([A-Za-z0-9_-]+)$/.exec(signed);
  assert.ok(m, signed);
  return { segment: m[1]!, sig: m[2]! };
}

describe("upstream signer", () => {
  const targets = [
    "http://127.0.0.1:8000/live/seg-001.ts",
    "https://cdn.example/a/b/init.mp4?token=x&y=1",
    "http://127.0.0.1/master.m3u8",
    "http://127.0.0.1/key",
    "http://127.0.0.1/päth/ßeg.m4s",
  ];
  for (const target of targets) {
    it(`round-trips ${target}`, () => {
      const signed = signer.sign("ch1", target);
      assert.equal(signer.sign("ch1", target), signed, "deterministic");
      const { segment, sig } = split(signed);
      assert.ok(segment.endsWith(targetExtension(target)));
      assert.equal(signer.verify("ch1", segment, sig), target);
      // What the routes read instead of parsing the verified target again.
      assert.equal(signedExtension(segment), targetExtension(target));
    });
  }

  it("keeps the target path's extension, not the query's", () => {
    assert.equal(targetExtension("http://h/a/seg.ts?x=1.mp4"), ".ts");
    assert.equal(targetExtension("http://h/a/seg"), "");
    assert.equal(targetExtension("http://h/a.b/seg"), "");
    assert.equal(targetExtension("http://h/x.m3u8"), ".m3u8");
    assert.equal(targetExtension("not a url"), "");
  });

  const target = "http://127.0.0.1:8000/live/seg-001.ts";
  const { segment, sig } = split(signer.sign("ch1", target));
  const flip = (s: string, i: number) =>
    s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  // 32 bytes in 43 characters: the last character's two low bits carry no data.
  const respell = (s: string) => s.slice(0, -1) + ALPHABET[ALPHABET.indexOf(s.at(-1)!) ^ 1];
  const tampered: [string, string, string, string | undefined][] = [
    ["another channel", "ch2", segment, sig],
    ["a changed target", "ch1", flip(segment, 3), sig],
    ["a changed sig", "ch1", segment, flip(sig, 5)],
    ["another spelling of the same sig bytes", "ch1", segment, respell(sig)],
    ["a truncated sig", "ch1", segment, sig.slice(0, -2)],
    ["a missing sig", "ch1", segment, undefined],
    ["an empty sig", "ch1", segment, ""],
    ["a changed extension", "ch1", segment.replace(/\.ts$/, ".mp4"), sig],
    ["a dropped extension", "ch1", segment.replace(/\.ts$/, ""), sig],
    ["padding added", "ch1", segment.replace(/\.ts$/, "=.ts"), sig],
    ["a sig from another key", "ch1", segment, split(other.sign("ch1", target)).sig],
  ];
  for (const [name, ch, seg, s] of tampered) {
    it(`refuses ${name}`, () => {
      assert.equal(signer.verify(ch, seg, s), undefined);
    });
  }
});
