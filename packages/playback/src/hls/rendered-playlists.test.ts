import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compilePlaylist, renderPlaylist } from "./playlist-rewriter.js";
import { renderedPlaylist } from "./rendered-playlists.js";

const BASE = "http://origin.test/live/index.m3u8";
const TEXT =
  '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:2,\nseg7.m4s\n#EXTINF:2,\nseg8.m4s\n';
const compile = (text: string, policy: "rewrite" | "passthrough" = "rewrite") =>
  compilePlaylist(text, { baseUrl: BASE, policy, sign: (t) => `u/${encodeURIComponent(t)}?sig=S` });
const PREFIX = "http://gw.test/v1/play/ch/";

describe("renderedPlaylist", () => {
  it("holds the bytes renderPlaylist writes, one copy per credential form", () => {
    const compiled = compile(TEXT);
    const a = renderedPlaylist(compiled, PREFIX, "&token=A");
    assert.equal(a.toString("utf8"), renderPlaylist(compiled, PREFIX, "&token=A"));
    assert.match(
      a.toString("utf8"),
      /u\/http%3A%2F%2Forigin\.test%2Flive%2Fseg8\.m4s\?sig=S&token=A\n$/,
    );
    // The same viewer's next poll is the same buffer, not a new render.
    assert.equal(renderedPlaylist(compiled, PREFIX, "&token=A"), a);
    const b = renderedPlaylist(compiled, PREFIX, "&token=B");
    assert.notEqual(b, a);
    assert.equal(b.toString("utf8"), renderPlaylist(compiled, PREFIX, "&token=B"));
    const other = renderedPlaylist(compiled, "http://other.test/p/k/play/ch/", "");
    assert.equal(
      other.toString("utf8"),
      renderPlaylist(compiled, "http://other.test/p/k/play/ch/", ""),
    );
  });

  it("renders again after the upstream changed (a new compiled playlist)", () => {
    const first = renderedPlaylist(compile(TEXT), PREFIX, "&token=A");
    const changed = renderedPlaylist(compile(`${TEXT}#EXTINF:2,\nseg9.m4s\n`), PREFIX, "&token=A");
    assert.notDeepEqual(changed, first);
    assert.match(changed.toString("utf8"), /seg9\.m4s\?sig=S&token=A\n$/);
  });

  it("shares one copy across credentials when nothing in the playlist carries them", () => {
    const compiled = compile(
      "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg1.ts\n",
      "passthrough",
    );
    assert.equal(compiled.refs.length, 0);
    const a = renderedPlaylist(compiled, PREFIX, "&token=A");
    assert.equal(renderedPlaylist(compiled, "http://x.test/", "&token=B"), a);
    assert.equal(
      a.toString("utf8"),
      "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nhttp://origin.test/live/seg1.ts\n",
    );
  });
});
