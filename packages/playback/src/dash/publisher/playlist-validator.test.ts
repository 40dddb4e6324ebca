import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAttributeList } from "./attribute-list.js";
import { validateMasterPlaylist, validateMediaPlaylist } from "./playlist-validator.js";

const media = (...body: string[]): string =>
  [
    "#EXTM3U",
    "#EXT-X-VERSION:6",
    "#EXT-X-TARGETDURATION:2",
    "#EXT-X-MEDIA-SEQUENCE:0",
    '#EXT-X-MAP:URI="i.mp4"',
    ...body,
  ].join("\n") + "\n";

// The validator guards the renderers, so each rule must actually fire on a broken playlist.
describe("validateMediaPlaylist catches violations", () => {
  const cases: [string, string, RegExp][] = [
    ["EXTINF rounds above target", media("#EXTINF:2.6,", "a.m4s"), /rounds above/],
    ["EXTINF without URI", media("#EXTINF:2.0,"), /without a URI/],
    ["URI without EXTINF", media("a.m4s"), /URI without/],
    ["unknown tag", media("#EXT-X-FOO:1"), /unexpected tag/],
    ["duplicated single tag", media("#EXT-X-MEDIA-SEQUENCE:1"), /more than once/],
    [
      "part without PART-INF",
      media('#EXT-X-PART:DURATION=0.5,URI="p"', "#EXTINF:2.0,", "a"),
      /without EXT-X-PART-INF/,
    ],
    [
      "part longer than PART-TARGET",
      media(
        "#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.5",
        "#EXT-X-PART-INF:PART-TARGET=0.5",
        '#EXT-X-PART:DURATION=0.6,URI="p"',
        "#EXTINF:2.0,",
        "a",
      ),
      /exceeds PART-TARGET/,
    ],
    [
      "PART-HOLD-BACK below 3x",
      media("#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.0", "#EXT-X-PART-INF:PART-TARGET=0.5"),
      /PART-HOLD-BACK is below/,
    ],
    [
      "PART-HOLD-BACK missing",
      media("#EXT-X-PART-INF:PART-TARGET=0.5"),
      /PART-HOLD-BACK is required/,
    ],
    ["HOLD-BACK below 3x", media("#EXT-X-SERVER-CONTROL:HOLD-BACK=5.9"), /HOLD-BACK is below/],
    [
      "CAN-SKIP-UNTIL below 6x",
      media("#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=11"),
      /CAN-SKIP-UNTIL is below/,
    ],
    ["EXT-X-SKIP needs version 9", media("#EXT-X-SKIP:SKIPPED-SEGMENTS=3"), /VERSION >= 9/],
    [
      "DISCONTINUITY-SEQUENCE after SKIP",
      media("#EXT-X-SKIP:SKIPPED-SEGMENTS=3", "#EXT-X-DISCONTINUITY-SEQUENCE:1"),
      /precede EXT-X-SKIP/,
    ],
    [
      "MEDIA-SEQUENCE after a segment",
      [
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-TARGETDURATION:2",
        "#EXTINF:2,",
        "a",
        "#EXT-X-MEDIA-SEQUENCE:0",
      ].join("\n") + "\n",
      /precede the first segment/,
    ],
    [
      "preload hint in an ended playlist",
      media('#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p"', "#EXT-X-ENDLIST"),
      /PRELOAD-HINT with EXT-X-ENDLIST/,
    ],
    ["bad attribute list", media('#EXT-X-MAP:URI="x",URI="y"'), /appears twice/],
    [
      "missing required attribute",
      media("#EXT-X-RENDITION-REPORT:LAST-MSN=3"),
      /lacks required URI/,
    ],
    ["bad PDT", media("#EXT-X-PROGRAM-DATE-TIME:yesterday"), /ISO 8601/],
    ["missing EXTM3U", "#EXT-X-TARGETDURATION:2\n", /#EXTM3U/],
    ["missing target duration", "#EXTM3U\n", /TARGETDURATION is required/],
    ["no final newline", media().slice(0, -1), /newline/],
    ["MAP with version 3", media().replace("VERSION:6", "VERSION:3"), /VERSION >= 6/],
  ];
  for (const [name, text, problem] of cases) {
    it(name, () =>
      assert.ok(
        validateMediaPlaylist(text).some((p) => problem.test(p)),
        validateMediaPlaylist(text).join("; "),
      ),
    );
  }
});

describe("validateMasterPlaylist catches violations", () => {
  const master = (...body: string[]): string =>
    ["#EXTM3U", "#EXT-X-VERSION:6", ...body].join("\n") + "\n";
  const cases: [string, string, RegExp][] = [
    [
      "DEFAULT without AUTOSELECT",
      master('#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x",DEFAULT=YES,AUTOSELECT=NO,URI="a"'),
      /AUTOSELECT/,
    ],
    [
      "two defaults",
      master(
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x",DEFAULT=YES,AUTOSELECT=YES',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="y",DEFAULT=YES,AUTOSELECT=YES',
      ),
      /2 DEFAULT/,
    ],
    [
      "duplicate NAME",
      master(
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x"',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x"',
      ),
      /repeats/,
    ],
    [
      "unknown audio group",
      master('#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO="zz"', "v.m3u8"),
      /no EXT-X-MEDIA/,
    ],
    [
      "FRAME-RATE precision",
      master("#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=29.97", "v.m3u8"),
      /three decimals/,
    ],
    [
      "RESOLUTION format",
      master("#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1280*720", "v.m3u8"),
      /WxH/,
    ],
    ["BANDWIDTH missing", master('#EXT-X-STREAM-INF:CODECS="a"', "v.m3u8"), /BANDWIDTH/],
    ["STREAM-INF without URI", master("#EXT-X-STREAM-INF:BANDWIDTH=1"), /without a URI/],
    ["CODECS unquoted", master("#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=avc1", "v.m3u8"), /quoted/],
  ];
  for (const [name, text, problem] of cases) {
    it(name, () =>
      assert.ok(
        validateMasterPlaylist(text).some((p) => problem.test(p)),
        validateMasterPlaylist(text).join("; "),
      ),
    );
  }
});

describe("parseAttributeList (RFC 8216bis 4.2)", () => {
  it("reads quoted values containing commas", () => {
    const r = parseAttributeList('CODECS="avc1.64001f,mp4a.40.2",BANDWIDTH=5');
    assert.ok(r.ok);
    assert.deepEqual(
      [...r.attrs.entries()],
      [
        ["CODECS", { kind: "quoted", text: "avc1.64001f,mp4a.40.2" }],
        ["BANDWIDTH", { kind: "bare", text: "5" }],
      ],
    );
  });
  const bad = ["lower=1", 'A="x', "A=1,", "A=1 ,B=2", "A", 'A="x"B=1'];
  for (const text of bad)
    it(`rejects ${text}`, () => assert.equal(parseAttributeList(text).ok, false));
});
