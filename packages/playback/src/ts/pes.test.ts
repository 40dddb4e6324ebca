import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pesHeader } from "@svc/test-kits/ts-builder";
import { PTS_WRAP, ptsDelta, readPesHeader } from "./pes.js";

describe("readPesHeader", () => {
  const cases: [string, Buffer, unknown][] = [
    ["PTS only", pesHeader(0xc0, 126_000), { streamId: 0xc0, payloadOffset: 14, pts: 126_000 }],
    [
      "PTS and DTS",
      pesHeader(0xe0, 7200, 3600),
      { streamId: 0xe0, payloadOffset: 19, pts: 7200, dts: 3600 },
    ],
    [
      "33-bit PTS",
      pesHeader(0xe0, PTS_WRAP - 1),
      { streamId: 0xe0, payloadOffset: 14, pts: PTS_WRAP - 1 },
    ],
    ["not a start code", Buffer.from([0, 0, 2, 0xe0, 0, 0, 0x80, 0, 0]), undefined],
    ["cut short", pesHeader(0xe0, 1).subarray(0, 8), undefined],
  ];
  for (const [name, bytes, want] of cases)
    it(name, () => assert.deepEqual(readPesHeader(bytes), want));
});

describe("ptsDelta", () => {
  const cases: [number, number, number][] = [
    [0, 3600, 3600],
    [3600, 0, -3600],
    [PTS_WRAP - 3600, 3600, 7200],
    [3600, PTS_WRAP - 3600, -7200],
    [PTS_WRAP - 1, 0, 1],
  ];
  for (const [from, to, want] of cases)
    it(`${from} → ${to} = ${want}`, () => assert.equal(ptsDelta(from, to), want));
});
