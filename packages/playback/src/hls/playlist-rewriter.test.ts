import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compilePlaylist,
  looksLikePlaylist,
  renderPlaylist,
  uriSpans,
} from "./playlist-rewriter.js";

// A readable stand-in for the signer: the target in angle brackets.
const sign = (target: string) => `u/<${target}>`;
const BASE = "http://origin.test/live/ch/index.m3u8?auth=1";
const P = "G/";
const Q = "&token=T";
const rewrite = (text: string, policy: "rewrite" | "passthrough" = "rewrite") =>
  renderPlaylist(compilePlaylist(text, { baseUrl: BASE, policy, sign }), P, Q);
const u = (target: string) => `G/u/<${target}>&token=T`;

const CASES: { name: string; input: string; output: string }[] = [
  {
    name: "media segments, relative and absolute",
    input:
      "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg1.ts\n#EXTINF:4,\n/abs/seg2.ts?x=1\n#EXTINF:4,\nhttps://cdn.test/seg3.ts\n#EXT-X-ENDLIST\n",
    output: `#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n${u("http://origin.test/live/ch/seg1.ts")}\n#EXTINF:4,\n${u("http://origin.test/abs/seg2.ts?x=1")}\n#EXTINF:4,\n${u("https://cdn.test/seg3.ts")}\n#EXT-X-ENDLIST\n`,
  },
  {
    name: "master: variants, audio rendition, I-frame playlist, session data and key, steering",
    input: [
      "#EXTM3U",
      '#EXT-X-CONTENT-STEERING:SERVER-URI="steer.json",PATHWAY-ID="A"',
      '#EXT-X-SESSION-DATA:DATA-ID="com.x",URI="data.json"',
      '#EXT-X-SESSION-KEY:METHOD=AES-128,URI="k.key",IV=0x1',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en, main",DEFAULT=YES,URI="audio/en.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=1000,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud"',
      "v1/index.m3u8",
      '#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100,URI="iframes.m3u8"',
      "",
    ].join("\n"),
    output: [
      "#EXTM3U",
      `#EXT-X-CONTENT-STEERING:SERVER-URI="${u("http://origin.test/live/ch/steer.json")}",PATHWAY-ID="A"`,
      `#EXT-X-SESSION-DATA:DATA-ID="com.x",URI="${u("http://origin.test/live/ch/data.json")}"`,
      `#EXT-X-SESSION-KEY:METHOD=AES-128,URI="${u("http://origin.test/live/ch/k.key")}",IV=0x1`,
      `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en, main",DEFAULT=YES,URI="${u("http://origin.test/live/ch/audio/en.m3u8")}"`,
      '#EXT-X-STREAM-INF:BANDWIDTH=1000,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud"',
      u("http://origin.test/live/ch/v1/index.m3u8"),
      `#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100,URI="${u("http://origin.test/live/ch/iframes.m3u8")}"`,
      "",
    ].join("\n"),
  },
  {
    name: "LL-HLS: map, parts, preload hint, rendition report, skip; unknown tags verbatim",
    input: [
      "#EXTM3U",
      "#EXT-X-TARGETDURATION:4",
      "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24.0",
      "#EXT-X-PART-INF:PART-TARGET=1.0",
      '#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"',
      "#EXT-X-SKIP:SKIPPED-SEGMENTS=3",
      '#EXT-X-VENDOR-THING:URI="left-alone.bin"',
      '#EXT-X-PART:DURATION=1.0,URI="p1.m4s",INDEPENDENT=YES',
      '#EXT-X-PART:DURATION=1.0,URI="seg9.m4s",BYTERANGE="100@200"',
      "#EXTINF:4.0,",
      "#EXT-X-BYTERANGE:1000@0",
      "seg9.m4s",
      '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p2.m4s"',
      '#EXT-X-RENDITION-REPORT:URI="../alt/index.m3u8",LAST-MSN=9,LAST-PART=1',
      '#EXT-X-DATERANGE:ID="ad",START-DATE="2026-01-01T00:00:00Z",CLASS="com.apple.hls.interstitial",X-ASSET-URI="ad.m3u8"',
      "",
    ].join("\n"),
    output: [
      "#EXTM3U",
      "#EXT-X-TARGETDURATION:4",
      "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0,CAN-SKIP-UNTIL=24.0",
      "#EXT-X-PART-INF:PART-TARGET=1.0",
      `#EXT-X-MAP:URI="${u("http://origin.test/live/ch/init.mp4")}",BYTERANGE="720@0"`,
      "#EXT-X-SKIP:SKIPPED-SEGMENTS=3",
      '#EXT-X-VENDOR-THING:URI="left-alone.bin"',
      `#EXT-X-PART:DURATION=1.0,URI="${u("http://origin.test/live/ch/p1.m4s")}",INDEPENDENT=YES`,
      `#EXT-X-PART:DURATION=1.0,URI="${u("http://origin.test/live/ch/seg9.m4s")}",BYTERANGE="100@200"`,
      "#EXTINF:4.0,",
      "#EXT-X-BYTERANGE:1000@0",
      u("http://origin.test/live/ch/seg9.m4s"),
      `#EXT-X-PRELOAD-HINT:TYPE=PART,URI="${u("http://origin.test/live/ch/p2.m4s")}"`,
      `#EXT-X-RENDITION-REPORT:URI="${u("http://origin.test/live/alt/index.m3u8")}",LAST-MSN=9,LAST-PART=1`,
      `#EXT-X-DATERANGE:ID="ad",START-DATE="2026-01-01T00:00:00Z",CLASS="com.apple.hls.interstitial",X-ASSET-URI="${u("http://origin.test/live/ch/ad.m3u8")}"`,
      "",
    ].join("\n"),
  },
  {
    name: "keys: AES-128 rewritten, FairPlay skd:// and data: left as they are, METHOD=NONE untouched",
    input:
      '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="key.bin",IV=0x00000000000000000000000000000001\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://asset-1",KEYFORMAT="com.apple.streamingkeydelivery"\n#EXT-X-KEY:METHOD=AES-128,URI="data:text/plain;base64,AAAA"\n#EXT-X-KEY:METHOD=NONE\n',
    output: `#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="${u("http://origin.test/live/ch/key.bin")}",IV=0x00000000000000000000000000000001\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://asset-1",KEYFORMAT="com.apple.streamingkeydelivery"\n#EXT-X-KEY:METHOD=AES-128,URI="data:text/plain;base64,AAAA"\n#EXT-X-KEY:METHOD=NONE\n`,
  },
  {
    name: "CRLF line ends, comments, blank lines and a missing final newline are kept",
    input: "#EXTM3U\r\n# a comment\r\n\r\n#EXTINF:2,\r\n  seg.ts  \r\n#EXT-X-ENDLIST",
    output: `#EXTM3U\r\n# a comment\r\n\r\n#EXTINF:2,\r\n  ${u("http://origin.test/live/ch/seg.ts")}  \r\n#EXT-X-ENDLIST\n`,
  },
  {
    name: "a malformed attribute list is left verbatim from the break on",
    input: '#EXTM3U\n#EXT-X-MAP:URI="unterminated\n#EXTINF:1,\nseg.ts\n',
    output: `#EXTM3U\n#EXT-X-MAP:URI="unterminated\n#EXTINF:1,\n${u("http://origin.test/live/ch/seg.ts")}\n`,
  },
];

describe("playlist rewriter", () => {
  for (const c of CASES) {
    it(c.name, () => {
      assert.equal(rewrite(c.input), c.output);
    });
  }

  it("passthrough leaves media pointing upstream and still proxies playlists and keys", () => {
    const input =
      '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="k.key"\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:2,\nseg.ts\n#EXT-X-RENDITION-REPORT:URI="alt.m3u8",LAST-MSN=1\n';
    assert.equal(
      rewrite(input, "passthrough"),
      `#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="${u("http://origin.test/live/ch/k.key")}"\n#EXT-X-MAP:URI="http://origin.test/live/ch/init.mp4"\n#EXTINF:2,\nhttp://origin.test/live/ch/seg.ts\n#EXT-X-RENDITION-REPORT:URI="${u("http://origin.test/live/ch/alt.m3u8")}",LAST-MSN=1\n`,
    );
  });

  it("drops a UTF-8 byte-order mark before #EXTM3U instead of rewriting the line as a URI", () => {
    const c = compilePlaylist("\ufeff#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg.ts\n", {
      baseUrl: "http://127.0.0.1:9/a/index.m3u8",
      policy: "rewrite",
      sign: (t) => `S(${t})`,
    });
    const out = renderPlaylist(c, "http://gw/v1/play/c/", "");
    assert.ok(out.startsWith("#EXTM3U\n"), out);
    assert.equal(c.refs.length, 1);
  });
  it("reports target duration and end of list", () => {
    const live = compilePlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n", {
      baseUrl: BASE,
      policy: "rewrite",
      sign,
    });
    assert.equal(live.targetDurationSec, 6);
    assert.equal(live.endList, false);
    const master = compilePlaylist(
      "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-ENDLIST\n",
      { baseUrl: BASE, policy: "rewrite", sign },
    );
    assert.equal(master.targetDurationSec, undefined);
    assert.equal(master.endList, true);
  });

  it("renders the same compiled playlist for different credentials", () => {
    const compiled = compilePlaylist("#EXTM3U\n#EXTINF:1,\na.ts\n", {
      baseUrl: BASE,
      policy: "rewrite",
      sign,
    });
    assert.equal(
      renderPlaylist(compiled, "https://gw/p/KEY/play/ch/", ""),
      "#EXTM3U\n#EXTINF:1,\nhttps://gw/p/KEY/play/ch/u/<http://origin.test/live/ch/a.ts>\n",
    );
    assert.equal(
      renderPlaylist(compiled, "X/", "&token=a&viewer=b"),
      "#EXTM3U\n#EXTINF:1,\nX/u/<http://origin.test/live/ch/a.ts>&token=a&viewer=b\n",
    );
  });

  const SPANS: [string, string[]][] = [
    ['#T:URI="a",X=1', ["a"]],
    ['#T:NAME="x, URI=\\"no\\"",URI="b"', ["b"]],
    ['#T:SERVER-URI="s",PATHWAY-ID="p"', ["s"]],
    ['#T:X-ASSET-URI="a",X-ASSET-LIST="l"', ["a", "l"]],
    ["#T:URI=unquoted", []],
    ['#T:OTHER-URI-ISH="x"', []],
  ];
  for (const [line, values] of SPANS) {
    it(`finds URI attributes in ${line}`, () => {
      const got = uriSpans(line, 3).map((s) => line.slice(s.start, s.end));
      assert.deepEqual(got, values);
    });
  }

  it("recognises a playlist by its #EXTM3U start", () => {
    assert.equal(looksLikePlaylist(Buffer.from("#EXTM3U\n")), true);
    assert.equal(looksLikePlaylist(Buffer.from("\ufeff#EXTM3U\n")), true);
    assert.equal(looksLikePlaylist(Buffer.from([0x47, 0x40, 0x11])), false);
  });
});
