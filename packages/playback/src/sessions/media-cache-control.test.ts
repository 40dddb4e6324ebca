import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mediaCacheControl, PLAYLIST_CACHE_CONTROL } from "./media-cache-control.js";

describe("mediaCacheControl", () => {
  const rows: [sharedCache: boolean | undefined, pinned: boolean, expected: string][] = [
    [true, true, "public, max-age=31536000, immutable"],
    [false, true, "private, max-age=31536000, immutable"],
    // A grant that does not say (a playback key): the safe side.
    [undefined, true, "private, max-age=31536000, immutable"],
    // No generation in the URL: the name may get other bytes after a restart or takeover.
    [true, false, "no-cache"],
    [false, false, "no-cache"],
  ];
  for (const [sharedCache, pinned, expected] of rows)
    it(`sharedCache ${sharedCache}, pinned ${pinned} → ${expected}`, () =>
      assert.equal(
        mediaCacheControl(sharedCache === undefined ? {} : { sharedCache }, pinned),
        expected,
      ));

  it("keeps playlists revalidated on every use", () => {
    assert.equal(PLAYLIST_CACHE_CONTROL, "no-cache");
  });
});
