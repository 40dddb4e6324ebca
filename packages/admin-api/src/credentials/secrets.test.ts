import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  API_TOKEN_SHAPE,
  digestsEqual,
  newApiTokenPlaintext,
  newPlaybackKeyPlaintext,
  PLAYBACK_KEY_SHAPE,
  randomBase62,
  sha256Hex,
} from "./secrets.js";

describe("credential secrets", () => {
  it("makes plaintexts of the spec's shapes", () => {
    for (let i = 0; i < 50; i++) {
      assert.match(newApiTokenPlaintext(), API_TOKEN_SHAPE);
      assert.match(newPlaybackKeyPlaintext(), PLAYBACK_KEY_SHAPE);
    }
    assert.equal(newApiTokenPlaintext().length, 7 + 48);
    assert.equal(newPlaybackKeyPlaintext().length, 128);
  });

  it("draws every base62 character", () => {
    const seen = new Set(randomBase62(20_000));
    assert.equal(seen.size, 62);
  });

  it("digests with SHA-256 and compares digests exactly", () => {
    assert.equal(
      sha256Hex("abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    assert.equal(digestsEqual(sha256Hex("a"), sha256Hex("a")), true);
    assert.equal(digestsEqual(sha256Hex("a"), sha256Hex("b")), false);
    assert.equal(digestsEqual(sha256Hex("a"), ""), false);
  });
});
