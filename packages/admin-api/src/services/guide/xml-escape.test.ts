import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeXml } from "./xml-escape.js";

describe("escapeXml", () => {
  it("escapes the markup characters and drops what XML 1.0 forbids", () => {
    const cases: [string, string][] = [
      ["plain text", "plain text"],
      ['a&b<c>"d"', "a&amp;b&lt;c&gt;&quot;d&quot;"],
      ["x\u0001y&", "xy&amp;"],
      ["tab\tnewline\n", "tab\tnewline\n"],
      ["\uD83D\uDE00 pair", "\uD83D\uDE00 pair"],
      ["lone \uD800 & \uDC00", "lone  &amp; "],
      ["\uFFFE\uFFFF", ""],
      // Twice in a row: the shared global regexes must not keep a lastIndex.
      ["&&", "&amp;&amp;"],
      ["&&", "&amp;&amp;"],
    ];
    for (const [input, expected] of cases) assert.equal(escapeXml(input), expected, input);
  });
});
