import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createScrubber, keySpellings, scrubUrls } from "./secret-scrubber.js";
import { StderrTail } from "./stderr-tail.js";

const KEY = "00112233445566778899aabbccddeeff";
const B64 = Buffer.from(KEY, "hex").toString("base64");

describe("createScrubber", () => {
  const scrub = createScrubber([...keySpellings(KEY), "Bearer tok3n-value", "1"]);
  const rows: [string, string, string][] = [
    ["hex key", `key=${KEY} bad`, "key=[redacted] bad"],
    ["upper-case hex key", `KEY ${KEY.toUpperCase()}`, "KEY [redacted]"],
    ["base64 key", `k=${B64}`, "k=[redacted]"],
    ["header value", "sent Bearer tok3n-value", "sent [redacted]"],
    ["short secrets are not scrubbed by value", "exit 1", "exit 1"],
    [
      "URL query",
      "http://127.0.0.1:9/a.mpd?token=x&sig=y: Server returned 404",
      "http://127.0.0.1:9/a.mpd?[redacted] Server returned 404",
    ],
    ["URL userinfo", "https://u:p@host/x.mpd failed", "https://[redacted]@host/x.mpd failed"],
    ["text without secrets", "[dash @ 0x1] Failed to open", "[dash @ 0x1] Failed to open"],
  ];
  for (const [name, input, expected] of rows) it(name, () => assert.equal(scrub(input), expected));
  it("scrubUrls keeps scheme, host and path", () =>
    assert.equal(
      scrubUrls("get https://cdn.example/a/b.m4s?x=1#f"),
      "get https://cdn.example/a/b.m4s?[redacted]#f",
    ));
});

describe("StderrTail", () => {
  it("scrubs whole lines even when a secret arrives split across chunks", () => {
    const tail = new StderrTail(createScrubber(keySpellings(KEY)));
    tail.push(`first line\nkey is ${KEY.slice(0, 10)}`);
    tail.push(`${KEY.slice(10)} here\r\nthird`);
    tail.end();
    assert.equal(tail.text(), "first line\nkey is [redacted] here\nthird");
  });
  it("keeps only the last maxChars characters, dropping whole old lines", () => {
    const tail = new StderrTail((s) => s, 20);
    for (let i = 0; i < 10; i++) tail.push(`line ${i}\n`);
    assert.equal(tail.text(), "line 7\nline 8\nline 9");
  });
  it("drops an overlong pending line instead of cutting it (a cut could halve a key)", () => {
    const tail = new StderrTail(createScrubber(keySpellings(KEY)));
    tail.push("x".repeat(2040));
    tail.push(KEY);
    tail.push(`${"y".repeat(100)}\nafter\n`);
    assert.equal(tail.text(), "[a stderr line longer than 2048 characters was dropped]\nafter");
  });
  it("a long line completed in one chunk is scrubbed whole, then its end kept", () => {
    const tail = new StderrTail(createScrubber(keySpellings(KEY)), 64);
    tail.push(`${"x".repeat(3000)}${KEY}${"y".repeat(20)}\n`);
    assert.equal(tail.text(), `${"x".repeat(34)}[redacted]${"y".repeat(20)}`);
  });
  it("is null until something is written, and skips blank lines", () => {
    const tail = new StderrTail((s) => s);
    assert.equal(tail.text(), null);
    tail.push("\n\r\n");
    assert.equal(tail.text(), null);
    tail.note("[gateway] restart");
    assert.equal(tail.text(), "[gateway] restart");
  });
});
