import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listBoxes, peekBoxHeader, readFullBox } from "./box-reader.js";
import { rebuildBox, writeBox, writeFullBox } from "./box-writer.js";

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ""), "hex");

describe("box reader", () => {
  const table: Array<{
    name: string;
    input: Buffer;
    types?: string[];
    sizes?: number[];
    error?: RegExp;
  }> = [
    {
      name: "two plain boxes",
      input: hex("00000008 66726565 0000000a 736b6970 0102"),
      types: ["free", "skip"],
      sizes: [8, 10],
    },
    {
      name: "64-bit largesize",
      input: hex("00000001 6d646174 0000000000000012 aabb"),
      types: ["mdat"],
      sizes: [18],
    },
    {
      name: "size 0 runs to the end",
      input: hex("00000008 66726565 00000000 6d646174 010203"),
      types: ["free", "mdat"],
      sizes: [8, 11],
    },
    {
      name: "uuid extended type",
      input: Buffer.concat([hex("00000018 75756964"), Buffer.alloc(16, 0xab)]),
      types: ["uuid"],
      sizes: [24],
    },
    { name: "size past the buffer", input: hex("00000010 66726565 00"), error: /overruns/ },
    {
      name: "size smaller than the header",
      input: hex("00000004 66726565"),
      error: /smaller than its header/,
    },
    { name: "truncated header", input: hex("000000"), error: /truncated box header/ },
    {
      name: "largesize beyond 2^53",
      input: hex("00000001 6d646174 ffffffffffffffff"),
      error: /too large/,
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const r = listBoxes(c.input);
      if (c.error) {
        assert.equal(r.ok, false);
        if (!r.ok) assert.match(r.error.message, c.error);
        return;
      }
      assert.ok(r.ok);
      assert.deepEqual(
        r.value.map((b) => b.type),
        c.types,
      );
      assert.deepEqual(
        r.value.map((b) => b.end - b.start),
        c.sizes,
      );
    });
  }

  it("reads full box version and flags", () => {
    const box = writeFullBox("tfhd", 1, 0x020008, Buffer.alloc(4));
    const list = listBoxes(box);
    assert.ok(list.ok);
    assert.deepEqual(readFullBox(box, list.value[0]!), {
      ok: true,
      value: { version: 1, flags: 0x020008, bodyStart: 12 },
    });
    assert.equal(
      readFullBox(writeBox("tfhd", Buffer.alloc(2)), {
        type: "tfhd",
        start: 0,
        headerSize: 8,
        end: 10,
      }).ok,
      false,
    );
  });

  it("peeks a header that is not complete yet", () => {
    assert.deepEqual(peekBoxHeader(hex("000000"), 0), { kind: "need-more" });
    assert.deepEqual(peekBoxHeader(hex("00000001 6d646174 0000"), 0), { kind: "need-more" });
    assert.deepEqual(peekBoxHeader(hex("00001000 6d6f6f66"), 0), {
      kind: "header",
      type: "moof",
      headerSize: 8,
      size: 4096,
    });
  });

  it("rebuild removes, replaces and recomputes every size", () => {
    const moov = writeBox(
      "moov",
      writeBox("trak", writeBox("tkhd", Buffer.alloc(4)), writeBox("pssh", Buffer.alloc(20))),
      writeBox("pssh", Buffer.alloc(30)),
    );
    const top = listBoxes(moov);
    assert.ok(top.ok);
    const r = rebuildBox(moov, top.value[0]!, (b) =>
      b.type === "pssh"
        ? { kind: "remove" }
        : b.type === "trak"
          ? { kind: "descend" }
          : b.type === "tkhd"
            ? { kind: "replace", bytes: writeBox("tkhd", Buffer.alloc(1)) }
            : { kind: "keep" },
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.value,
      writeBox("moov", writeBox("trak", writeBox("tkhd", Buffer.alloc(1)))),
    );
    assert.equal(r.value.readUInt32BE(0), r.value.length);
  });
});
