import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAttributes, parseExtinf, parseM3u } from "./m3u-parser.js";

describe("M3U parser", () => {
  for (const [input, attributes, title] of [
    [
      '-1 tvg-id="a" group-title="News, Weather",Title',
      { "tvg-id": "a", "group-title": "News, Weather" },
      "Title",
    ],
    [
      "-1 tvg-id='b' tvg-name=Bare,Title, with comma",
      { "tvg-id": "b", "tvg-name": "Bare" },
      "Title, with comma",
    ],
    ["0,Children's TV", {}, "Children's TV"],
    ['10.5 TVG-ID="Up",X', { "tvg-id": "Up" }, "X"],
    ['-1 tvg-id="unterminated,Title', { "tvg-id": "unterminated,Title" }, ""],
    ["-1", {}, ""],
  ] as const)
    it(`#EXTINF:${input}`, () => {
      assert.deepEqual(parseExtinf(input), { attributes, title });
    });

  it("reads header attributes", () => {
    assert.deepEqual(parseAttributes(" x-tvg-url=\"http://g/x.xml\" url-tvg='y'"), {
      "x-tvg-url": "http://g/x.xml",
      "url-tvg": "y",
    });
  });

  it("walks BOM, CRLF, CR and LF lines, keeping directives for the next URL only", () => {
    const r = parseM3u(
      '\ufeff#EXTM3U x-tvg-url="g"\r\n#EXTINF:-1 tvg-id="a",A\r#EXTVLCOPT:http-user-agent=UA\nhttp://h/a\r\n\r\nhttp://h/b\n#KODIPROP:k=v\n#EXTGRP:G\nhttp://h/c',
    );
    assert.ok(r.ok);
    const { tvgUrl, entries } = r.ok ? r.value : { tvgUrl: "", entries: [] };
    assert.equal(tvgUrl, "g");
    assert.deepEqual(
      entries.map((e) => [e.line, e.url, e.title, e.vlc, e.kodi, e.extgrp]),
      [
        [4, "http://h/a", "A", { "http-user-agent": "UA" }, {}, ""],
        [6, "http://h/b", "", {}, {}, ""],
        [9, "http://h/c", "", {}, { k: "v" }, "G"],
      ],
    );
  });

  it("refuses text that is not an extended M3U", () => {
    for (const text of ["", "   \n\n", "http://h/a\n#EXTM3U", "<html>"])
      assert.equal(parseM3u(text).ok, false, text);
    assert.ok(parseM3u("\n\n#EXTM3U\n").ok);
  });
});
