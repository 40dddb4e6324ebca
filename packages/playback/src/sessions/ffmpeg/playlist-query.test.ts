import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { appendQuery, appendQueryToPlaylist } from "./playlist-query.js";

const FFMPEG_PLAYLIST = [
  "#EXTM3U",
  "#EXT-X-VERSION:7",
  "#EXT-X-TARGETDURATION:2",
  "#EXT-X-MEDIA-SEQUENCE:1795330702",
  "#EXT-X-INDEPENDENT-SEGMENTS",
  '#EXT-X-MAP:URI="init-r0.mp4"',
  "#EXTINF:2.000000,",
  "r0-1795330702.m4s",
  "#EXTINF:1.040000,",
  "r0-1795330703.m4s",
  "",
].join("\n");

describe("appendQueryToPlaylist", () => {
  it("appends the query to EXT-X-MAP and every segment line, nothing else", () => {
    assert.equal(
      appendQueryToPlaylist(FFMPEG_PLAYLIST, "token=a.b-c_d%2Be"),
      FFMPEG_PLAYLIST.replace('URI="init-r0.mp4"', 'URI="init-r0.mp4?token=a.b-c_d%2Be"')
        .replace("r0-1795330702.m4s", "r0-1795330702.m4s?token=a.b-c_d%2Be")
        .replace("r0-1795330703.m4s", "r0-1795330703.m4s?token=a.b-c_d%2Be"),
    );
  });
  const rows: [string, string, string, string][] = [
    ["leading ? is accepted", "seg.ts\n", "?t=1", "seg.ts?t=1\n"],
    [
      "CRLF line endings are kept",
      "#EXTINF:2,\r\nseg.ts\r\n",
      "t=1",
      "#EXTINF:2,\r\nseg.ts?t=1\r\n",
    ],
    ["existing query joins with &", "seg.ts?v=2\n", "t=1", "seg.ts?v=2&t=1\n"],
    ["fragment stays last", "seg.ts#x\n", "t=1", "seg.ts?t=1#x\n"],
    [
      "absolute URIs are left alone",
      "https://cdn.example/seg.ts\n",
      "t=1",
      "https://cdn.example/seg.ts\n",
    ],
    ["root-relative URIs are left alone", "/v1/play/x/seg.ts\n", "t=1", "/v1/play/x/seg.ts\n"],
    [
      "EXT-X-KEY is not ours",
      '#EXT-X-KEY:METHOD=AES-128,URI="k.key"\n',
      "t=1",
      '#EXT-X-KEY:METHOD=AES-128,URI="k.key"\n',
    ],
    [
      "only the URI attribute of a tag changes",
      '#EXT-X-PART:DURATION=0.5,URI="p1.m4s",INDEPENDENT=YES\n',
      "t=1",
      '#EXT-X-PART:DURATION=0.5,URI="p1.m4s?t=1",INDEPENDENT=YES\n',
    ],
    ["the query is never re-encoded", "seg.ts\n", "sig=a%2Fb+c==", "seg.ts?sig=a%2Fb+c==\n"],
    ["empty query changes nothing", "seg.ts\n", "", "seg.ts\n"],
    [
      "blank lines and comments stay",
      "#EXTM3U\n\n# note\nseg.ts",
      "t=1",
      "#EXTM3U\n\n# note\nseg.ts?t=1",
    ],
  ];
  for (const [name, input, query, expected] of rows)
    it(name, () => assert.equal(appendQueryToPlaylist(input, query), expected));
  it("appendQuery handles a trailing ?", () =>
    assert.equal(appendQuery("a.ts?", "t=1"), "a.ts?t=1"));
});
