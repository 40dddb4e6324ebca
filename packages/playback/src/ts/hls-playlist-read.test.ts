import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  chooseAudioRendition,
  chooseVariant,
  isMasterPlaylist,
  readAudioRenditions,
  readMediaPlaylist,
  readVariants,
} from "./hls-playlist-read.js";

const MASTER = `#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2"
low/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720
mid/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080
http://cdn.test/hi/index.m3u8
`;

describe("HLS playlists for the stream.ts relay", () => {
  it("reads variants and picks the highest bandwidth, or the closest height", () => {
    assert.equal(isMasterPlaylist(MASTER), true);
    const v = readVariants(MASTER, "http://origin.test/live/master.m3u8");
    assert.deepEqual(
      v.map((x) => [x.uri, x.bandwidth, x.height]),
      [
        ["http://origin.test/live/low/index.m3u8", 800000, 360],
        ["http://origin.test/live/mid/index.m3u8", 2500000, 720],
        ["http://cdn.test/hi/index.m3u8", 5000000, 1080],
      ],
    );
    assert.equal(chooseVariant(v, null)?.height, 1080);
    assert.equal(chooseVariant(v, 700)?.height, 720);
    assert.equal(chooseVariant(v, 100)?.height, 360);
  });

  it("numbers media segments and carries discontinuities, keys and maps", () => {
    const text = `#EXTM3U
#EXT-X-TARGETDURATION:2
#EXT-X-MEDIA-SEQUENCE:41
#EXTINF:2.0,
a.ts
#EXT-X-DISCONTINUITY
#EXTINF:1.5,
b.ts
#EXT-X-KEY:METHOD=AES-128,URI="k.bin",IV=0x0102
#EXTINF:2,
c.ts
#EXT-X-KEY:METHOD=NONE
#EXT-X-MAP:URI="init.mp4"
#EXTINF:2,
d.m4s
#EXT-X-ENDLIST
`;
    assert.equal(isMasterPlaylist(text), false);
    const m = readMediaPlaylist(text, "http://o.test/x/index.m3u8");
    assert.equal(m.targetDurationSec, 2);
    assert.equal(m.endList, true);
    assert.deepEqual(
      m.segments.map((s) => [s.msn, s.uri.split("/").at(-1), s.durationSec, s.discontinuity]),
      [
        [41, "a.ts", 2, false],
        [42, "b.ts", 1.5, true],
        [43, "c.ts", 2, false],
        [44, "d.m4s", 2, false],
      ],
    );
    assert.deepEqual(m.segments[2]!.key, {
      method: "AES-128",
      uri: "http://o.test/x/k.bin",
      iv: "0x0102",
    });
    assert.equal(m.segments[3]!.key, undefined);
    assert.equal(m.segments[3]!.map, "http://o.test/x/init.mp4");
  });
});

describe("audio renditions of a master playlist", () => {
  const master = `#EXTM3U
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",LANGUAGE="en",DEFAULT=YES,URI="a/en.m3u8"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="de",LANGUAGE="de-DE",URI="a/de.m3u8"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="muxed",NAME="main",DEFAULT=YES
#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="aud",NAME="subs",URI="s.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,AUDIO="aud"
v/index.m3u8
`;

  it("reads the AUDIO group of a variant and the renditions with a URI", () => {
    const [v] = readVariants(master, "http://o.test/live/master.m3u8");
    assert.equal(v?.audioGroup, "aud");
    const r = readAudioRenditions(master, "http://o.test/live/master.m3u8");
    assert.deepEqual(
      r.map((x) => [x.groupId, x.uri, x.language, x.isDefault]),
      [
        ["aud", "http://o.test/live/a/en.m3u8", "en", true],
        ["aud", "http://o.test/live/a/de.m3u8", "de-DE", false],
      ],
    );
  });

  it("chooses a preferred language, else DEFAULT=YES, else the first", () => {
    const r = readAudioRenditions(master, "http://o.test/");
    assert.equal(chooseAudioRendition(r, "aud")?.language, "en");
    assert.equal(chooseAudioRendition(r, "aud", ["fr", "DE"])?.language, "de-DE");
    assert.equal(chooseAudioRendition(r.slice(1), "aud")?.language, "de-DE");
    assert.equal(chooseAudioRendition(r, "muxed"), undefined);
  });
});
