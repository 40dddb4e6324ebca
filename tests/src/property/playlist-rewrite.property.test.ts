import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compilePlaylist, renderPlaylist } from "@svc/playback/playlist-rewriter";
import fc from "fast-check";
import { runs } from "./property-runs.js";

// Property: the rewriter replaces every URI a player would fetch (URI lines and the URI
// attributes of the tags RFC 8216bis lists) by `prefix + sign(resolved) + query`, leaves
// every other byte where it was, and keeps non-http URIs verbatim. The oracle is the
// generator itself: it knows where it put each URI.

const BASE = "http://origin.test/live/ch/index.m3u8?auth=1";
const PREFIX = "http://gw.test/play/ch/";
const QUERY = "&token=T";
const sign = (target: string) => `u/<${target}>`;

/** A piece of the generated playlist: literal text or a URI the rewriter must treat. */
type Piece = { text: string } | { uri: string; kind: "playlist" | "key" | "media" };

const segment = fc.stringMatching(/^[a-z0-9][a-z0-9._~-]{0,11}$/);
const relativeUri = fc
  .tuple(
    fc.constantFrom("", "../", "/abs/", "sub/", "./"),
    fc.array(segment, { minLength: 1, maxLength: 3 }),
    fc.constantFrom(".ts", ".m3u8", ".mp4", ".m4s", ".key", ""),
    fc.constantFrom("", "?a=1", "?x=%20y&z", "?sig=a,b"),
  )
  .map(([lead, parts, ext, q]) => `${lead}${parts.join("/")}${ext}${q}`);
const absoluteUri = fc
  .tuple(fc.constantFrom("http", "https", "HTTP"), segment, relativeUri)
  .map(([scheme, host, path]) => `${scheme}://${host}.test/${path.replace(/^\.*\/*/, "")}`);
const httpUri = fc.oneof(relativeUri, absoluteUri);
/** URIs that do not resolve to http(s): they must stay exactly as written. */
const otherUri = fc.constantFrom("skd://key-id-1", "data:text/plain;base64,AAAA", "urn:x:y");

/** A quoted attribute value without quotes or line breaks (RFC 8216bis 4.2 quoted-string). */
const quoted = fc.stringMatching(/^[^"\r\n]{0,12}$/);
const otherAttrs = fc.array(
  fc.oneof(
    fc
      .tuple(fc.constantFrom("NAME", "GROUP-ID", "CODECS", "ID"), quoted)
      .map(([n, v]) => `${n}="${v}"`),
    fc.constantFrom("BANDWIDTH=1000", "DURATION=1.0", "IV=0x01", "LAST-MSN=4", "TYPE=PART"),
  ),
  { maxLength: 3 },
);

const URI_TAGS = [
  ["EXT-X-KEY", "URI", "key"],
  ["EXT-X-SESSION-KEY", "URI", "key"],
  ["EXT-X-MAP", "URI", "media"],
  ["EXT-X-PART", "URI", "media"],
  ["EXT-X-PRELOAD-HINT", "URI", "media"],
  ["EXT-X-MEDIA", "URI", "playlist"],
  ["EXT-X-I-FRAME-STREAM-INF", "URI", "playlist"],
  ["EXT-X-RENDITION-REPORT", "URI", "playlist"],
  ["EXT-X-SESSION-DATA", "URI", "playlist"],
  ["EXT-X-CONTENT-STEERING", "SERVER-URI", "playlist"],
  ["EXT-X-DATERANGE", "X-ASSET-URI", "playlist"],
  ["EXT-X-DATERANGE", "X-ASSET-LIST", "playlist"],
] as const;

const eol = fc.constantFrom("\n", "\r\n");

/** One tag line whose URI attribute sits among other attributes, in any position. */
const uriTagLine = fc
  .tuple(
    fc.constantFrom(...URI_TAGS),
    otherAttrs,
    otherAttrs,
    fc.oneof(
      httpUri.map((uri) => ({ uri, http: true })),
      otherUri.map((uri) => ({ uri, http: false })),
    ),
    eol,
  )
  .map(([[tag, attr, kind], before, after, uri, end]): Piece[] => {
    const head = [...before, ""].join(",");
    const tail = ["", ...after].join(",");
    const pieces: Piece[] = [{ text: `#${tag}:${head}${attr}="` }];
    pieces.push(uri.http ? { uri: uri.uri, kind } : { text: uri.uri });
    pieces.push({ text: `"${tail}${end}` });
    return pieces;
  });

/** `#EXTINF` + a media URI line, with surrounding blanks kept. */
const segmentLines = fc
  .tuple(
    fc.stringMatching(/^[^\r\n]{0,10}$/),
    fc.constantFrom("", " ", "\t"),
    httpUri,
    fc.constantFrom("", " "),
    eol,
    eol,
  )
  .map(([title, lead, uri, trail, e1, e2]): Piece[] => [
    { text: `#EXTINF:4.000,${title}${e1}${lead}` },
    { uri, kind: "media" },
    { text: `${trail}${e2}` },
  ]);

/** `#EXT-X-STREAM-INF` + a variant playlist URI line. */
const variantLines = fc
  .tuple(otherAttrs, httpUri, eol, eol)
  .map(([attrs, uri, e1, e2]): Piece[] => [
    { text: `#EXT-X-STREAM-INF:BANDWIDTH=1,${attrs.join(",")}${e1}` },
    { uri, kind: "playlist" },
    { text: e2 },
  ]);

/** Lines that must pass through untouched: comments, blanks, unknown tags (even with URI=). */
const verbatimLine = fc
  .tuple(
    fc.oneof(
      fc.stringMatching(/^# [^\r\n]{0,15}$/),
      fc.constant(""),
      fc.constant("   "),
      fc.constantFrom("#EXT-X-TARGETDURATION:4", "#EXT-X-MEDIA-SEQUENCE:7", "#EXT-X-ENDLIST"),
      fc.tuple(httpUri).map(([u]) => `#EXT-X-VENDOR-THING:URI="${u}"`),
      fc.stringMatching(/^#EXT-X-UNKNOWN:[^\r\n]{0,15}$/),
    ),
    eol,
  )
  .map(([line, end]): Piece[] => [{ text: line + end }]);

const playlist = fc
  .array(fc.oneof(uriTagLine, segmentLines, variantLines, verbatimLine), { maxLength: 25 })
  .map((lines) => [{ text: "#EXTM3U\n" } as Piece, ...lines.flat()]);

function expected(pieces: Piece[], policy: "rewrite" | "passthrough"): string {
  return pieces
    .map((p) => {
      if ("text" in p) return p.text;
      const target = new URL(p.uri, BASE).href;
      if (policy === "passthrough" && p.kind === "media") return target;
      return PREFIX + sign(target) + QUERY;
    })
    .join("");
}

describe("property: HLS playlist rewrite", () => {
  for (const policy of ["rewrite", "passthrough"] as const) {
    it(`${policy}: every URI rewritten, every other byte unchanged`, () => {
      fc.assert(
        fc.property(playlist, (pieces) => {
          const text = pieces.map((p) => ("text" in p ? p.text : p.uri)).join("");
          const compiled = compilePlaylist(text, { baseUrl: BASE, policy, sign });
          assert.equal(renderPlaylist(compiled, PREFIX, QUERY), expected(pieces, policy));
        }),
        runs(400),
      );
    });
  }

  it("a playlist without URIs renders byte for byte as it came", () => {
    fc.assert(
      fc.property(fc.array(verbatimLine, { maxLength: 20 }), (lines) => {
        const text = `#EXTM3U\n${lines
          .flat()
          .map((p) => ("text" in p ? p.text : ""))
          .join("")}`;
        const compiled = compilePlaylist(text, { baseUrl: BASE, policy: "rewrite", sign });
        assert.equal(compiled.refs.length, 0);
        assert.equal(renderPlaylist(compiled, PREFIX, QUERY), text);
      }),
      runs(300),
    );
  });
});
