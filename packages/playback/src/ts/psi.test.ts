import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { patSection, pmtSection, section } from "@svc/test-kits/ts-builder";
import { crc32Mpeg2, parsePat, parsePmt, SectionAssembler } from "./psi.js";

describe("crc32Mpeg2", () => {
  it("has the CRC-32/MPEG-2 check value", () =>
    assert.equal(crc32Mpeg2(Buffer.from("123456789")), 0x0376e6e7));
  it("is 0 over a section with its CRC", () => assert.equal(crc32Mpeg2(patSection(0x1000)), 0));
});

describe("parsePat / parsePmt", () => {
  it("reads the program's PMT PID", () =>
    assert.deepEqual(parsePat(patSection(0x1000)), {
      ok: true,
      value: [{ programNumber: 1, pmtPid: 0x1000 }],
    }));
  it("skips the network PID entry", () => {
    const s = section(0x00, 1, [0, 0, 0xe0, 0x10, 0, 1, 0xe1, 0x00]);
    assert.deepEqual(parsePat(s), { ok: true, value: [{ programNumber: 1, pmtPid: 0x100 }] });
  });
  const broken: [string, Buffer, RegExp][] = [
    [
      "a flipped bit",
      Buffer.from(patSection(0x1000).map((b, i) => (i === 9 ? b ^ 1 : b))),
      /CRC-32 mismatch/,
    ],
    ["the wrong table", pmtSection(0x100, []), /table_id 2 is not 0/],
    ["a cut section", patSection(0x1000).subarray(0, 14), /section_length/],
  ];
  for (const [name, bytes, want] of broken)
    it(`refuses ${name}`, () => {
      const r = parsePat(bytes);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error, want);
    });
  it("reads streams, descriptor tags and registration", () => {
    const r = parsePmt(
      pmtSection(0x100, [
        { type: 0x24, pid: 0x100 },
        { type: 0x06, pid: 0x101, descriptors: [0x6a, 1, 0] },
        { type: 0x06, pid: 0x102, descriptors: [0x05, 4, 0x45, 0x41, 0x43, 0x33] },
      ]),
    );
    assert.ok(r.ok);
    assert.equal(r.value.pcrPid, 0x100);
    assert.deepEqual(
      r.value.streams.map((s) => [s.pid, s.streamType, s.descriptorTags, s.registration]),
      [
        [0x100, 0x24, [], undefined],
        [0x101, 0x06, [0x6a], undefined],
        [0x102, 0x06, [0x05], "EAC3"],
      ],
    );
  });
});

describe("SectionAssembler", () => {
  const s = pmtSection(
    0x100,
    Array.from({ length: 40 }, (_, i) => ({ type: 0x0f, pid: 0x200 + i })),
  );
  it("joins a section spread over packets", () => {
    const a = new SectionAssembler();
    const first = Buffer.concat([Buffer.from([0]), s.subarray(0, 100)]);
    assert.equal(a.push(first, true), undefined);
    assert.equal(a.push(s.subarray(100, 150), false), undefined);
    const done = a.push(Buffer.concat([s.subarray(150), Buffer.alloc(20, 0xff)]), false);
    assert.deepEqual(done, s);
  });
  it("honours the pointer_field", () => {
    const a = new SectionAssembler();
    assert.deepEqual(a.push(Buffer.concat([Buffer.from([3, 9, 9, 9]), s]), true), s);
  });
  it("ignores continuation bytes without a unit start", () =>
    assert.equal(new SectionAssembler().push(s, false), undefined));
});
