import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseStrictJson } from "./strict-json.js";

const parse = (body: string | Uint8Array) =>
  parseStrictJson(typeof body === "string" ? Buffer.from(body, "utf8") : body);

describe("parseStrictJson (issue 12 item 9)", () => {
  const refused: [string, string | Uint8Array, RegExp][] = [
    ["a duplicated key", '{"a":1,"a":2}', /key "a" twice/],
    ["a duplicated key spelled with an escape", '{"a":1,"\\u0061":2}', /key "a" twice/],
    ["a duplicated key in a nested object", '{"x":[{"k":1,"k":1}]}', /key "k" twice/],
    [
      "bytes that are not UTF-8",
      Uint8Array.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      /UTF-8/,
    ],
    ["an overlong UTF-8 encoding", Uint8Array.from([0x22, 0xc0, 0xaf, 0x22]), /UTF-8/],
    ["a lone surrogate escape", '{"name":"\\ud800"}', /surrogate/],
    ["a lone surrogate in a key", '{"\\udc00":1}', /surrogate/],
    ["a duplicated key after escaped quotes", '{"s":"a\\":\\"b","s" :2}', /key "s" twice/],
    ["a duplicated key among many", `{${'"k":1,'.repeat(3)}"z":[{"a":"\\\\","a":0}]}`, /twice/],
    ["malformed JSON", '{"a":', /not valid JSON/],
    ["a trailing comma", '{"a":1,}', /not valid JSON/],
  ];
  for (const [name, body, message] of refused) {
    it(`refuses ${name}`, () => {
      const r = parse(body);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.message, message);
    });
  }

  it("accepts the same keys in sibling objects, pairs of surrogates and any UTF-8", () => {
    const r = parse('{"a":{"k":1},"b":{"k":2},"s":"\\ud83d\\ude00 é ✓","t":"😀"}');
    assert.deepEqual(r, { ok: true, value: { a: { k: 1 }, b: { k: 2 }, s: "😀 é ✓", t: "😀" } });
  });

  it("reads strings that look like members, and never throws on nesting deeper than the stack", () => {
    const r = parse('{"a":"\\"b\\":1","c":["d:", "e" ,{"f" : "\\\\"}]}');
    assert.deepEqual(r, { ok: true, value: { a: '"b":1', c: ["d:", "e", { f: "\\" }] } });
    const deep = parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`);
    assert.equal(typeof deep.ok, "boolean");
  });

  it("keeps JSON.parse's own-property reading of __proto__", () => {
    const r = parse('{"__proto__":{"polluted":true}}');
    assert.equal(r.ok, true);
    if (r.ok) {
      assert.ok(Object.hasOwn(r.value as object, "__proto__"));
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    }
  });
});
