import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { avcParameterSets, hevcParameterSets, toAnnexB } from "./annex-b.js";

const SPS = Buffer.from([0x67, 0x64, 0x00, 0x1f, 0xac]);
const PPS = Buffer.from([0x68, 0xee, 0x3c, 0x80]);
/** avcC: version 1, profile 0x64, compat 0, level 0x1f, 4-byte lengths, 1 SPS, 1 PPS. */
const AVCC = Buffer.concat([
  Buffer.from([1, 0x64, 0, 0x1f, 0xff, 0xe1, 0, SPS.length]),
  SPS,
  Buffer.from([1, 0, PPS.length]),
  PPS,
]);
const sc = "00000001";

function lengthPrefixed(nals: Buffer[], size = 4): Buffer {
  return Buffer.concat(
    nals.flatMap((n) => {
      const l = Buffer.alloc(size);
      l.writeUIntBE(n.length, 0, size);
      return [l, n];
    }),
  );
}

describe("Annex B conversion", () => {
  it("reads SPS and PPS from avcC", () => {
    assert.deepEqual(avcParameterSets(AVCC), [SPS, PPS]);
  });

  it("reads VPS, SPS, PPS from hvcC arrays", () => {
    const vps = Buffer.from([0x40, 0x01, 0x0c]);
    const sps = Buffer.from([0x42, 0x01, 0x01]);
    const pps = Buffer.from([0x44, 0x01, 0xc1]);
    const head = Buffer.alloc(22);
    head[0] = 1;
    head[21] = 0x0f;
    const array = (type: number, nal: Buffer) =>
      Buffer.concat([Buffer.from([0x80 | type, 0, 1, 0, nal.length]), nal]);
    const hvcC = Buffer.concat([
      head,
      Buffer.from([3]),
      array(32, vps),
      array(33, sps),
      array(34, pps),
    ]);
    assert.deepEqual(hevcParameterSets(hvcC), [vps, sps, pps]);
  });

  it("puts an AUD first and SPS/PPS before an IDR, start codes between units", () => {
    const idr = Buffer.from([0x65, 0x88, 0x84]);
    const sei = Buffer.from([0x06, 0x05, 0x01]);
    const out = toAnnexB(lengthPrefixed([sei, idr]), 4, "avc", [SPS, PPS], true);
    assert.equal(
      out.toString("hex"),
      `${sc}09f0${sc}${SPS.toString("hex")}${sc}${PPS.toString("hex")}${sc}060501${sc}658884`,
    );
  });

  it("adds no parameter sets to a non-IDR sample nor to one that has its own", () => {
    const slice = Buffer.from([0x41, 0x9a]);
    assert.equal(
      toAnnexB(lengthPrefixed([slice], 2), 2, "avc", [SPS, PPS], false).toString("hex"),
      `${sc}09f0${sc}419a`,
    );
    const own = toAnnexB(lengthPrefixed([SPS, PPS, Buffer.from([0x65, 1])]), 4, "avc", [SPS], true);
    assert.equal(
      own.toString("hex"),
      `${sc}09f0${sc}${SPS.toString("hex")}${sc}${PPS.toString("hex")}${sc}6501`,
    );
  });

  it("drops the sample's own AUD (one per access unit) and uses the HEVC AUD", () => {
    const aud = Buffer.from([0x46, 0x01, 0x10]);
    const trail = Buffer.from([0x02, 0x01, 0xd0]);
    assert.equal(
      toAnnexB(lengthPrefixed([aud, trail]), 4, "hevc", [], false).toString("hex"),
      `${sc}460150${sc}0201d0`,
    );
  });

  it("refuses a NAL length that runs past the sample", () => {
    assert.throws(
      () => toAnnexB(Buffer.from([0, 0, 0, 9, 0x65]), 4, "avc", [], false),
      /past the sample/,
    );
  });
});
