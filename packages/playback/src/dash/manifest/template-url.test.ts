import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileTemplate, expandTemplate, type TemplateValues } from "./template-url.js";

const values: TemplateValues = {
  representationId: "v1",
  bandwidth: 800000,
  number: 42,
  time: 90000n,
  subNumber: 3,
};

/**
 * `run()`'s result and the characters of padding asked of `String.prototype.padStart`,
 * `padEnd` and `repeat` while it ran: an operation count that does not depend on the
 * machine's speed.
 */
function countingPadding<T>(run: () => T): { value: T; padded: number } {
  const proto = String.prototype;
  const saved = { padStart: proto.padStart, padEnd: proto.padEnd, repeat: proto.repeat };
  let padded = 0;
  proto.padStart = function (this: string, width: number, fill?: string) {
    padded += Math.max(0, width - this.length);
    return saved.padStart.call(this, width, fill);
  };
  proto.padEnd = function (this: string, width: number, fill?: string) {
    padded += Math.max(0, width - this.length);
    return saved.padEnd.call(this, width, fill);
  };
  proto.repeat = function (this: string, count: number) {
    padded += this.length * count;
    return saved.repeat.call(this, count);
  };
  try {
    return { value: run(), padded };
  } finally {
    Object.assign(proto, saved);
  }
}

describe("expandTemplate: identifiers and %0Nd widths (ISO/IEC 23009-1 5.3.9.4.4)", () => {
  const cases: [string, TemplateValues, string][] = [
    ["$RepresentationID$/$Number$.m4s", values, "v1/42.m4s"],
    ["$Number%05d$.m4s", values, "00042.m4s"],
    ["$Number%01d$.m4s", values, "42.m4s"],
    ["$Time$.m4s", values, "90000.m4s"],
    ["$Time%012d$.m4s", values, "000000090000.m4s"],
    ["$Bandwidth$-$Bandwidth%09d$", values, "800000-000800000"],
    ["$RepresentationID%05d$", values, "000v1"],
    ["$SubNumber$-$SubNumber%03d$", values, "3-003"],
    ["cost$$$Number$$$.m4s", values, "cost$42$.m4s"],
    ["$$$$", values, "$$"],
    ["no-identifiers.m4s", values, "no-identifiers.m4s"],
    // $Time$ above 2^53 must not lose digits.
    ["t=$Time$", { ...values, time: 9_007_199_254_740_993n }, "t=9007199254740993"],
    ["t=$Time%020d$", { ...values, time: 18_446_744_073_709_551_615n }, "t=18446744073709551615"],
    ["n=$Number%03d$", { ...values, number: 123456n }, "n=123456"],
  ];
  for (const [tpl, v, want] of cases) {
    it(`${tpl} -> ${want}`, () => {
      const c = compileTemplate(tpl);
      assert.ok(c.ok);
      assert.equal(expandTemplate(c.value, v), want);
    });
  }
});

describe("compileTemplate: invalid templates are errors", () => {
  const cases: [string, RegExp][] = [
    ["$Number", /unterminated/],
    ["$Nmber$", /unknown template identifier/],
    ["$Number%5d$", /unknown template identifier/],
    ["$Number%05x$", /unknown template identifier/],
    ["$Number$_$Time$", /both/],
  ];
  for (const [tpl, message] of cases) {
    it(tpl, () => {
      const c = compileTemplate(tpl, "SegmentTemplate");
      assert.equal(c.ok, false);
      if (!c.ok) {
        assert.equal(c.error.element, "SegmentTemplate");
        assert.match(c.error.message, message);
      }
    });
  }
  it("accepts a width up to 32 and refuses a wider one, naming the attribute", () => {
    assert.ok(compileTemplate("$Number%032d$.m4s").ok);
    assert.ok(compileTemplate("$Time%0032d$.m4s").ok);
    const wide: [string, "media" | "initialization", RegExp][] = [
      [
        "$Number%033d$.m4s",
        "media",
        /SegmentTemplate@media: format width 33 of \$Number\$ exceeds the maximum of 32/,
      ],
      [
        "$RepresentationID%0100000000d$/init.mp4",
        "initialization",
        /SegmentTemplate@initialization: format width 100000000 /,
      ],
      [
        `$Number%0${"9".repeat(400)}d$`,
        "media",
        /SegmentTemplate@media: format width 999999999999… /,
      ],
    ];
    for (const [tpl, attribute, message] of wide) {
      const { value: c, padded } = countingPadding(() =>
        compileTemplate(tpl, "Representation[v1]", attribute),
      );
      // The work a refusal does is independent of the width asked for: it never pads
      // (a width of 10^8 padded once is 100 MB), counted instead of timed.
      assert.equal(padded, 0, `${tpl.slice(0, 40)}: padding requested while refusing`);
      assert.equal(c.ok, false);
      if (!c.ok) {
        assert.equal(c.error.element, "Representation[v1]");
        assert.match(c.error.message, message);
        assert.ok(c.error.message.length < 200, "the message does not repeat a huge width");
      }
    }
    // The counter sees padding where there is some: $Number$ 42 at the widest width pads 30.
    const widest = compileTemplate("$Number%032d$.m4s");
    assert.ok(widest.ok);
    if (widest.ok)
      assert.equal(countingPadding(() => expandTemplate(widest.value, values)).padded, 30);
  });
  it("records which identifiers a template uses", () => {
    const c = compileTemplate("$RepresentationID$/$Time$");
    assert.ok(c.ok);
    assert.deepEqual([...c.value.uses].sort(), ["RepresentationID", "Time"]);
  });
});
