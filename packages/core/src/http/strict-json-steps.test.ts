import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runToEnd } from "../time-slices.js";
import { parseStrictJson } from "./strict-json.js";
import { strictJsonSteps } from "./strict-json-steps.js";

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
    // Decoded from bytes as readJsonBody does: a flat string. (JSON.stringify's own result is
    // a rope that the first regular expression over it flattens, 130 ms of this test's CPU.)
    const body = new TextDecoder().decode(Buffer.from(JSON.stringify({ content, apply: false })));
    // Counted, not timed: the steps between which runInSlices lets the event loop run. A
    // string ends a step every 64 Ki characters it scans and again every 64 Ki it checks for
    // lone surrogates, so this body takes at least one step per 64 Ki characters; parsing it
    // in one go (parseStrictJson, one turn of ~300 ms) is one step.
    const steps = strictJsonSteps(body);
    let count = 0;
    let step = steps.next();
    while (step.done !== true) {
      count++;
      step = steps.next();
    }
    const result = step.value;
    assert.ok(result.ok && (result.value as { content: string }).content === content);
    const atLeast = Math.floor(body.length / 65_536);
    console.log(`32 MiB body: ${count} steps (at least ${atLeast} expected)`);
    assert.ok(count >= atLeast, `${count} steps for ${body.length} characters`);
  });
});
