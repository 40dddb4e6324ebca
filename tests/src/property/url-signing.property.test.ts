import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createUpstreamSigner } from "@svc/playback/upstream-signer";
import fc from "fast-check";
import { runs } from "./property-runs.js";

// Property: a signed `u/{upstream}?sig=…` reference verifies to its target, and any change
// to the upstream segment, the signature, the channel id or the key makes verification fail
// (operator contract "Wire details": a changed URL is 403).

const key = fc.uint8Array({ minLength: 32, maxLength: 64 }).map((b) => Buffer.from(b));
const channelId = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/);
const target = fc
  .tuple(
    fc.constantFrom("http", "https"),
    fc.stringMatching(/^[a-z0-9-]{1,12}$/),
    fc.array(fc.stringMatching(/^[A-Za-z0-9._~%-]{1,10}$/), { maxLength: 4 }),
    fc.constantFrom("", ".ts", ".m3u8", ".m4s", ".mp4", ".key", ".TS"),
    fc.constantFrom("", "?token=abc", "?a=1&b=%2F", "#frag"),
    fc.string({ maxLength: 6, unit: "grapheme" }),
  )
  .map(([s, host, path, ext, q, uni]) => {
    const raw = `${s}://${host}.test/${path.join("/")}${encodeURIComponent(uni)}${ext}${q}`;
    return new URL(raw).href;
  });

/** A one-character change: substitute, insert or delete at a position. */
const mutation = fc.tuple(
  fc.constantFrom("substitute", "insert", "delete"),
  fc.nat(),
  fc.constantFrom(..."ABCabcxyz0189-_.%=/+ ".split("")),
);
function mutate(text: string, [op, at, ch]: [string, number, string]): string {
  const i = at % (text.length + (op === "insert" ? 1 : 0));
  if (op === "substitute") return text.slice(0, i) + ch + text.slice(i + 1);
  if (op === "insert") return text.slice(0, i) + ch + text.slice(i);
  return text.slice(0, i) + text.slice(i + 1);
}

/** Splits `u/{segment}?sig={sig}` the way the play routes read it. */
function split(ref: string): { segment: string; sig: string } {
  const m = /^u\/([^?]+)\?sig=(.*)$/.exec(ref);
  assert.ok(m, ref);
  return { segment: m[1]!, sig: m[2]! };
}

describe("property: upstream URL signing", () => {
  it("a signed reference verifies to its target", () => {
    fc.assert(
      fc.property(key, channelId, target, (k, id, t) => {
        const signer = createUpstreamSigner(k);
        const { segment, sig } = split(signer.sign(id, t));
        assert.equal(signer.verify(id, segment, sig), t);
      }),
      runs(500),
    );
  });

  it("any one-character change to the upstream segment or the signature fails", () => {
    fc.assert(
      fc.property(key, channelId, target, mutation, fc.boolean(), (k, id, t, m, inSig) => {
        const signer = createUpstreamSigner(k);
        const { segment, sig } = split(signer.sign(id, t));
        const seg2 = inSig ? segment : mutate(segment, m);
        const sig2 = inSig ? mutate(sig, m) : sig;
        fc.pre(seg2 !== segment || sig2 !== sig);
        assert.equal(signer.verify(id, seg2, sig2), undefined, `${seg2}?sig=${sig2}`);
      }),
      runs(2000),
    );
  });

  it("a reference signed for another channel, another target or another key fails", () => {
    fc.assert(
      fc.property(key, key, channelId, channelId, target, target, (k1, k2, id1, id2, t1, t2) => {
        const { segment, sig } = split(createUpstreamSigner(k1).sign(id1, t1));
        if (id2 !== id1)
          assert.equal(createUpstreamSigner(k1).verify(id2, segment, sig), undefined);
        if (!k2.equals(k1))
          assert.equal(createUpstreamSigner(k2).verify(id1, segment, sig), undefined);
        if (t2 !== t1) {
          // The target of one reference with the signature of another.
          const other = split(createUpstreamSigner(k1).sign(id1, t2));
          assert.equal(createUpstreamSigner(k1).verify(id1, other.segment, sig), undefined);
          assert.equal(createUpstreamSigner(k1).verify(id1, segment, other.sig), undefined);
        }
      }),
      runs(500),
    );
  });

  it("a missing signature or a truncated one fails", () => {
    fc.assert(
      fc.property(key, channelId, target, fc.nat(), (k, id, t, cut) => {
        const signer = createUpstreamSigner(k);
        const { segment, sig } = split(signer.sign(id, t));
        assert.equal(signer.verify(id, segment, undefined), undefined);
        assert.equal(signer.verify(id, segment, sig.slice(0, cut % sig.length)), undefined);
        assert.equal(signer.verify(id, segment.slice(0, cut % segment.length), sig), undefined);
      }),
      runs(500),
    );
  });
});
