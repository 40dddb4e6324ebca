import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createXmltvReader, DEFAULT_XMLTV_LIMITS, XmltvError } from "./xmltv-reader.js";

const LIMITS = { maxDepth: 16, maxTextChars: 10_000 };

function read(xml: string) {
  let programmes = 0;
  const r = createXmltvReader(
    "UTC",
    { channel: () => undefined, programme: () => void programmes++ },
    LIMITS,
  );
  const bytes = Buffer.from(xml);
  for (let i = 0; i < bytes.length; i += 4096) r.write(bytes.subarray(i, i + 4096));
  r.close();
  return programmes;
}

const programme = (inner: string, attrs = "") =>
  `<tv><programme start="20260101000000 +0000" channel="a"${attrs}><title>t</title>${inner}</programme></tv>`;
/** 50,000 characters with `mark` every 100: no single run exceeds the limit. */
const flood = (mark: string) => `${"x".repeat(99)}${mark}`.repeat(500);

/** `n` attributes of about 100 characters each. */
const attributes = (n: number) =>
  Array.from({ length: n }, (_, i) => `a${i}="${"x".repeat(90)}"`).join(" ");

describe("createXmltvReader size limit (what saxes holds at once)", () => {
  // Each of these once passed: the old counter restarted at every `<` or `>`,
  // while saxes kept buffering the whole unit.
  for (const [name, xml] of [
    ["a text node with a `>` every 100 characters", programme(`<desc>${flood(">")}</desc>`)],
    ["an attribute value holding `>`", programme("", ` x="${flood(">")}"`)],
    ["a comment holding `<`", programme(`<!--${flood("<")}-->`)],
    ["a CDATA section holding `<`", programme(`<desc><![CDATA[${flood("<")}]]></desc>`)],
    ["a processing instruction holding `<`", programme(`<?pi ${flood("<")}?>`)],
    ["a text node of entities", programme(`<desc>${"&amp;".repeat(10_000)}</desc>`)],
    ["a tag of many short attributes", programme("", ` ${attributes(500)}`)],
  ] as const) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => read(xml),
        (err: unknown) => {
          assert.ok(err instanceof XmltvError, String(err));
          assert.match(err.message, /longer than 10000 characters/);
          return true;
        },
      );
    });
  }

  it("accepts a document whose text and tags are each below the limit, however many", () => {
    const desc = `<desc>${"d".repeat(9_000)} &gt; ${"e".repeat(900)}</desc>`;
    const xml = `<tv>${`<programme start="20260101000000 +0000" channel="a"><title>t</title>${desc}</programme>`.repeat(200)}</tv>`;
    assert.equal(read(xml), 200);
  });

  it("refuses a 60-million-character desc with a `>` every 1000 characters, the heap staying flat", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const r = createXmltvReader("UTC", { channel: () => undefined, programme: () => undefined });
    const piece = Buffer.from(`${"y".repeat(999)}>`.repeat(64));
    const base = heap();
    let grown = 0;
    let refused: unknown;
    try {
      r.write(Buffer.from(programme("<desc>").replace("</programme></tv>", "")));
      for (let written = 0; written < 60_000_000; written += piece.length) {
        r.write(piece);
        // Sampled every ~4 MB: the old reader grew by all it had read.
        if (written % (64 * piece.length) === 0) grown = Math.max(grown, heap() - base);
      }
      r.write(Buffer.from("</desc></programme></tv>"));
      r.close();
    } catch (err) {
      refused = err;
    }
    grown = Math.max(grown, heap() - base);
    assert.ok(grown < 16 * 1_048_576, `heap grew by ${(grown / 1_048_576).toFixed(1)} MiB`);
    assert.ok(refused instanceof XmltvError, `not refused: ${String(refused)}`);
    assert.match(refused.message, new RegExp(`longer than ${DEFAULT_XMLTV_LIMITS.maxTextChars}`));
  });
});
