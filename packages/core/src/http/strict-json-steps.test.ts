import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runToEnd } from "../base/time-slices.js";
import { parseStrictJson } from "./strict-json.js";
import {
  MAX_NAME_CHARS,
  MAX_NUMBER_CHARS,
  strictJsonSteps,
  TextPieces,
} from "./strict-json-steps.js";

/** `text` cut every `size` characters: the parser reads pieces as the body decoder gives them. */
function* cutEvery(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** Every input answers as parseStrictJson answers it: the same value or the same refusal. */
const BODIES: readonly string[] = [
  '{"a":1,"a":2}',
  '{"a":1,"\\u0061":2}',
  '{"x":[{"k":1,"k":1}]}',
  '{"name":"\\ud800"}',
  '{"\\udc00":1}',
  '{"s":"a\\":\\"b","s" :2}',
  '{"a":',
  '{"a":1,}',
  "[1,2,]",
  '{"a" 1}',
  '{"a":tru}',
  '{"a":"\u0001"}',
  '{"a":"\\x"}',
  '{"a":"\\u12"}',
  '{"a":"\\u12G4"}',
  '"unterminated',
  '"ends in a backslash\\',
  "",
  "   ",
  "{} x",
  " {} ",
  '[1,2,{"x":[true,false,null,-1.5e3,0,1e400]}]',
  '{"__proto__":{"polluted":true}}',
  '"\\ud83d\\ude00 é ✓ 😀"',
  '{"a":{"k":1},"b":{"k":2}}',
  "01",
  "-",
  "1.",
  '{"content":"#EXTM3U\\r\\n#EXTINF:-1 tvg-id=\\"a\\",A\\r\\nhttp://h/a\\r\\n"}',
];

describe("strictJsonSteps answers as parseStrictJson (issue 30 item 1)", () => {
  for (const body of BODIES)
    it(JSON.stringify(body).slice(0, 60), () => {
      assert.deepEqual(runToEnd(strictJsonSteps(body)), parseStrictJson(Buffer.from(body)));
    });

  it("answers the same whatever the pieces the text comes in", () => {
    for (const body of BODIES)
      for (const size of [1, 2, 3, 7, 64])
        assert.deepEqual(
          runToEnd(strictJsonSteps(cutEvery(body, size))),
          parseStrictJson(Buffer.from(body)),
          `${JSON.stringify(body)} in pieces of ${size}`,
        );
  });

  it("hands a named top-level string on as pieces that never split a surrogate pair", () => {
    const content = `#EXTM3U\r\n${"é😀\u0000x".repeat(40_000)}`;
    const body = JSON.stringify({ content, apply: true, nested: { content: "kept whole" } });
    for (const size of [5, 4096, 70_000]) {
      const r = runToEnd(
        strictJsonSteps(cutEvery(body, size), { pieceMembers: new Set(["content"]) }),
      );
      assert.ok(r.ok);
      const value = r.value as { content: TextPieces; apply: boolean; nested: unknown };
      assert.ok(value.content instanceof TextPieces);
      assert.ok(value.content.pieces.length > 1);
      assert.equal(value.content.pieces.join(""), content);
      for (const piece of value.content.pieces) {
        const last = piece.charCodeAt(piece.length - 1);
        assert.ok(!(last >= 0xd800 && last <= 0xdbff), "a piece ends in a high surrogate");
      }
      assert.equal(value.apply, true);
      assert.deepEqual(value.nested, { content: "kept whole" });
    }
  });

  it("refuses a lone surrogate cut at a piece boundary, and over-long numbers and names", () => {
    for (const body of [
      `{"content":"${"x".repeat(65_535)}\ud800"}`,
      `{"content":"${"x".repeat(65_535)}\ud800${"y".repeat(70_000)}"}`,
      `{"content":"${"x".repeat(65_535)}\udc00"}`,
    ])
      for (const size of [3, 65_536, 1 << 20])
        assert.deepEqual(runToEnd(strictJsonSteps(cutEvery(body, size))), {
          ok: false,
          message: "request body holds a lone UTF-16 surrogate",
        });
    const pair = `{"content":"${"x".repeat(65_535)}\ud83d\ude00"}`;
    assert.equal(runToEnd(strictJsonSteps(cutEvery(pair, 65_540))).ok, true);
    assert.deepEqual(runToEnd(strictJsonSteps(`[${"1".repeat(MAX_NUMBER_CHARS + 1)}]`)), {
      ok: false,
      message: `request body holds a number longer than ${MAX_NUMBER_CHARS} characters`,
    });
    assert.equal(runToEnd(strictJsonSteps(`[${"1".repeat(MAX_NUMBER_CHARS)}]`)).ok, true);
    assert.deepEqual(runToEnd(strictJsonSteps(`{"${"k".repeat(MAX_NAME_CHARS + 1)}":1}`)), {
      ok: false,
      message: `request body holds a member name longer than ${MAX_NAME_CHARS} characters`,
    });
  });

  it("reads strings longer than a segment, escapes cut at no boundary, pairs across windows", () => {
    for (const fill of ["x", "\\n", "\\u00e9", "\\ud83d\\ude00", "é", "😀", 'ab\\"c\\\\']) {
      const body = `{"content":"${fill.repeat(70_000)}","apply":true}`;
      assert.deepEqual(runToEnd(strictJsonSteps(body)), parseStrictJson(Buffer.from(body)), fill);
    }
    const lone = `{"content":"${"x".repeat(65_535)}\\ud800${"y".repeat(10)}"}`;
    assert.equal(runToEnd(strictJsonSteps(lone)).ok, false);
  });

  it("parses nesting far deeper than the stack without throwing", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    assert.equal(runToEnd(strictJsonSteps(deep)).ok, true);
  });

  it("parses a 32 MiB import body in many short steps", () => {
    const line =
      '#EXTINF:-1 tvg-id="ch.test" group-title="G",Channel\r\nhttp://127.0.0.1:9/live/x.m3u8\r\n';
    const content = `#EXTM3U\r\n${line.repeat((31 * 1024 * 1024) / line.length)}`;
    // Decoded from bytes 64 KiB at a time as readJsonBody does, `content` handed on in pieces.
    const bytes = Buffer.from(JSON.stringify({ content, apply: false }));
    const utf8 = new TextDecoder();
    const decoded = (function* () {
      for (let at = 0; at < bytes.length; at += 65_536)
        yield utf8.decode(bytes.subarray(at, at + 65_536), { stream: true });
    })();
    // Counted, not timed: the steps between which runInSlices lets the event loop run. A
    // string ends a step every 64 Ki characters it scans, so this body takes at least one
    // step per 64 Ki characters; parsing it in one go (parseStrictJson) is one step.
    const steps = strictJsonSteps(decoded, { pieceMembers: new Set(["content"]) });
    let count = 0;
    let step = steps.next();
    while (step.done !== true) {
      count++;
      step = steps.next();
    }
    const result = step.value;
    assert.ok(result.ok);
    // The value stays in pieces, none of them the whole text.
    const pieces = (result.value as { content: TextPieces }).content.pieces;
    assert.ok(pieces.length > 1 && pieces.every((piece) => piece.length < content.length));
    assert.equal(pieces.join(""), content);
    const atLeast = Math.floor(bytes.length / 65_536);
    console.log(
      `32 MiB body: ${count} steps (at least ${atLeast} expected), ${pieces.length} pieces`,
    );
    assert.ok(count >= atLeast, `${count} steps for ${bytes.length} bytes`);
  });
});
