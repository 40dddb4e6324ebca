import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { H264_AUD, H264_IDR, H264_NON_IDR, H264_PPS, H264_SPS } from "@svc/test-kits/ts-builder";
import { audioCodecOf, avcCodec, hevcCodec, programCodecs } from "./codecs.js";
import { AccessUnitScanner, unescapeRbsp, type VideoCodec } from "./nal-scan.js";

const H265_SPS = [
  0, 0, 0, 1, 0x42, 0x01, 0x01, 0x01, 0x60, 0, 0, 3, 0, 0x90, 0, 0, 3, 0, 0, 3, 0, 0x5d, 0xa0,
];
const h265 = (type: number) => [0, 0, 0, 1, type << 1, 1, 0xaf];

describe("AccessUnitScanner", () => {
  const cases: [string, VideoCodec, number[], boolean][] = [
    ["H.264 AUD SPS PPS IDR", "h264", [...H264_AUD, ...H264_SPS, ...H264_PPS, ...H264_IDR], true],
    ["H.264 non-IDR slice", "h264", [...H264_AUD, ...H264_NON_IDR], false],
    ["H.264 SEI then IDR", "h264", [0, 0, 1, 0x06, 5, 1, 0, 0x80, ...H264_IDR], true],
    ["H.265 IDR_W_RADL (19)", "h265", [...h265(35), 0x50, ...H265_SPS, ...h265(19)], true],
    ["H.265 CRA (21)", "h265", h265(21), true],
    ["H.265 BLA_W_LP (16)", "h265", h265(16), true],
    ["H.265 TRAIL_R (1)", "h265", h265(1), false],
    ["H.265 RASL_N (8)", "h265", h265(8), false],
  ];
  for (const [name, codec, bytes, rap] of cases)
    for (const step of [1, 3, 1000])
      it(`${name}, in pieces of ${step}`, () => {
        const s = new AccessUnitScanner(codec);
        for (let i = 0; i < bytes.length; i += step)
          s.push(Uint8Array.from(bytes.slice(i, i + step)));
        assert.equal(s.done, true);
        assert.equal(s.randomAccess, rap);
      });
  it("keeps the SPS without emulation prevention", () => {
    const s = new AccessUnitScanner("h265");
    s.push(Uint8Array.from([...H265_SPS, ...h265(19)]));
    assert.deepEqual(
      [...(s.sps ?? [])],
      [0x42, 1, 1, 1, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 0x5d, 0xa0],
    );
  });
  it("unescapes 00 00 03", () =>
    assert.deepEqual([...unescapeRbsp([0, 0, 3, 1, 0, 0, 3, 0])], [0, 0, 1, 0, 0, 0]));
});

describe("codecs", () => {
  it("avc1.PPCCLL", () =>
    assert.equal(avcCodec(Uint8Array.from([0x67, 0x64, 0x00, 0x1e])), "avc1.64001e"));
  it("hvc1 Main", () =>
    assert.equal(hevcCodec(unescapeRbsp(H265_SPS.slice(4))), "hvc1.1.6.L93.90"));
  it("hvc1 Main 10, high tier", () =>
    assert.equal(
      hevcCodec(Uint8Array.from([0x42, 1, 1, 0x22, 0x20, 0, 0, 0, 0xb0, 0, 0, 0, 0, 0, 150])),
      "hvc1.2.4.H150.B0",
    ));
  const audio: [number, number[], string | undefined, string][] = [
    [0x0f, [], "mp4a.40.2", "ADTS AAC"],
    [0x03, [], "mp4a.40.34", "MPEG-1 audio"],
    [0x04, [], "mp4a.40.34", "MPEG-2 audio"],
    [0x81, [], "ac-3", "ATSC AC-3"],
    [0x87, [], "ec-3", "ATSC E-AC-3"],
    [0x06, [0x6a], "ac-3", "DVB AC-3 descriptor"],
    [0x06, [0x7a], "ec-3", "DVB E-AC-3 descriptor"],
    [0x06, [0x59], undefined, "DVB subtitles"],
  ];
  for (const [type, tags, want, name] of audio)
    it(name, () =>
      assert.equal(audioCodecOf({ pid: 1, streamType: type, descriptorTags: tags }), want),
    );
  it("a program: video first, audio in PMT order, none until the SPS is known", () => {
    const pmt = {
      programNumber: 1,
      pcrPid: 0x100,
      streams: [
        { pid: 0x100, streamType: 0x1b, descriptorTags: [] },
        { pid: 0x101, streamType: 0x0f, descriptorTags: [] },
        { pid: 0x102, streamType: 0x81, descriptorTags: [] },
      ],
    };
    assert.equal(programCodecs(pmt, undefined), undefined);
    assert.equal(
      programCodecs(pmt, Uint8Array.from([0x67, 0x4d, 0x40, 0x1f])),
      "avc1.4d401f,mp4a.40.2,ac-3",
    );
  });
});
