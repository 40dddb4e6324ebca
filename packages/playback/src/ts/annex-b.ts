/**
 * ISO/IEC 14496-15 length-prefixed NAL units (the samples of an `avc1`/`hvc1` track) to
 * the Annex B byte stream MPEG-TS carries (ISO/IEC 13818-1 2.14 for AVC, 2.17 for HEVC).
 */

export type VideoCodec = "avc" | "hevc";

const START_CODE = Buffer.from([0, 0, 0, 1]);
/** An access unit delimiter first in every access unit (13818-1 2.14.1, 2.17.1). */
const AUD: Record<VideoCodec, Buffer> = {
  // H.264 7.3.2.4: nal_unit_type 9, primary_pic_type 7 (any slice type).
  avc: Buffer.from([0x09, 0xf0]),
  // H.265 7.3.2.5: nal_unit_type 35, layer 0, tid 1, pic_type 2.
  hevc: Buffer.from([0x46, 0x01, 0x50]),
};

/** The parameter-set NAL units of an `avcC` body (14496-15 5.3.3.1): SPS then PPS. */
export function avcParameterSets(avcC: Uint8Array): Buffer[] {
  const out: Buffer[] = [];
  let at = 5;
  const take = (count: number) => {
    for (let i = 0; i < count; i++) {
      if (at + 2 > avcC.length) throw new Error("avcC: truncated parameter set");
      const len = (avcC[at]! << 8) | avcC[at + 1]!;
      at += 2;
      if (at + len > avcC.length) throw new Error("avcC: truncated parameter set");
      out.push(Buffer.from(avcC.subarray(at, at + len)));
      at += len;
    }
  };
  if (avcC.length < 6) throw new Error("avcC: too short");
  take(avcC[at++]! & 0x1f);
  if (at >= avcC.length) throw new Error("avcC: missing PPS count");
  take(avcC[at++]!);
  return out;
}

/** The NAL units of an `hvcC` body's arrays (14496-15 8.3.3.1): VPS, SPS, PPS, SEI in order. */
export function hevcParameterSets(hvcC: Uint8Array): Buffer[] {
  if (hvcC.length < 23) throw new Error("hvcC: too short");
  const out: Buffer[] = [];
  let at = 23;
  const arrays = hvcC[22]!;
  for (let a = 0; a < arrays; a++) {
    if (at + 3 > hvcC.length) throw new Error("hvcC: truncated array");
    const count = (hvcC[at + 1]! << 8) | hvcC[at + 2]!;
    at += 3;
    for (let i = 0; i < count; i++) {
      if (at + 2 > hvcC.length) throw new Error("hvcC: truncated NAL unit");
      const len = (hvcC[at]! << 8) | hvcC[at + 1]!;
      at += 2;
      if (at + len > hvcC.length) throw new Error("hvcC: truncated NAL unit");
      out.push(Buffer.from(hvcC.subarray(at, at + len)));
      at += len;
    }
  }
  return out;
}

function nalType(codec: VideoCodec, nal: Uint8Array): number {
  return codec === "avc" ? nal[0]! & 0x1f : (nal[0]! >> 1) & 0x3f;
}

function isParameterSet(codec: VideoCodec, type: number): boolean {
  return codec === "avc" ? type === 7 || type === 8 : type >= 32 && type <= 34;
}

function isAud(codec: VideoCodec, type: number): boolean {
  return codec === "avc" ? type === 9 : type === 35;
}

/**
 * One access unit in Annex B: an access unit delimiter, then (at a random-access sample)
 * the track's parameter sets unless the sample carries its own, then the sample's NAL
 * units, each behind a 4-byte start code. A length running past the sample is an error.
 * @example
 * toAnnexB(sample, 4, "avc", avcParameterSets(avcC), true) // 00 00 00 01 09 f0 00 00 00 01 67 …
 */
export function toAnnexB(
  sample: Uint8Array,
  nalLengthSize: number,
  codec: VideoCodec,
  parameterSets: readonly Buffer[],
  randomAccess: boolean,
): Buffer {
  const nals: Uint8Array[] = [];
  let own = false;
  let at = 0;
  while (at < sample.length) {
    if (at + nalLengthSize > sample.length) throw new Error("NAL length field past the sample");
    let len = 0;
    for (let i = 0; i < nalLengthSize; i++) len = len * 256 + sample[at + i]!;
    at += nalLengthSize;
    if (at + len > sample.length) throw new Error("NAL unit past the sample");
    if (len > 0) {
      const nal = sample.subarray(at, at + len);
      const type = nalType(codec, nal);
      if (isParameterSet(codec, type)) own = true;
      if (!isAud(codec, type)) nals.push(nal);
    }
    at += len;
  }
  const list: Uint8Array[] = [START_CODE, AUD[codec]];
  if (randomAccess && !own) for (const ps of parameterSets) list.push(START_CODE, ps);
  for (const nal of nals) list.push(START_CODE, nal);
  return Buffer.concat(list);
}
