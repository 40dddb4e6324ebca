// RFC 6381 CODECS values from the PMT stream types (ISO/IEC 13818-1 Table 2-34) and the SPS.

import type { VideoCodec } from "./nal-scan.js";
import type { Pmt, PmtStream } from "./psi.js";

/** Stream types of the video the segmenter cuts at random-access points. */
export function videoCodecOf(s: PmtStream): VideoCodec | undefined {
  if (s.streamType === 0x1b) return "h264";
  if (s.streamType === 0x24) return "h265";
  if (s.streamType === 0x06 && s.registration === "HEVC") return "h265";
  return undefined;
}

/** The CODECS entry of an audio stream, or undefined for a stream that is not audio we know. */
export function audioCodecOf(s: PmtStream): string | undefined {
  switch (s.streamType) {
    case 0x0f: // ADTS AAC (ISO/IEC 13818-7)
      return "mp4a.40.2";
    case 0x11: // LATM/LOAS AAC (ISO/IEC 14496-3): the object type is in the StreamMuxConfig,
      // which is not read; AAC-LC is what broadcasters carry in LATM (docs/ts-ingress.md).
      return "mp4a.40.2";
    case 0x03: // MPEG-1 audio
    case 0x04: // MPEG-2 audio
      return "mp4a.40.34";
    case 0x81: // ATSC A/52 AC-3
      return "ac-3";
    case 0x87: // ATSC A/52 E-AC-3
      return "ec-3";
    case 0x06: // DVB private data: the descriptor says what it carries (EN 300 468 Annex D)
      if (s.descriptorTags.includes(0x7a) || s.registration === "EAC3") return "ec-3";
      if (s.descriptorTags.includes(0x6a) || s.registration === "AC-3") return "ac-3";
      return undefined;
    default:
      return undefined;
  }
}

const hex2 = (n: number) => n.toString(16).padStart(2, "0");

/**
 * `avc1.PPCCLL` from an H.264 SPS (NAL header first): profile_idc, the constraint flags
 * byte and level_idc (RFC 6381 3.3).
 * @example avcCodec(Buffer.from([0x67, 0x64, 0x00, 0x1e])) // "avc1.64001e"
 */
export function avcCodec(sps: Uint8Array): string | undefined {
  if (sps.length < 4) return undefined;
  return `avc1.${hex2(sps[1]!)}${hex2(sps[2]!)}${hex2(sps[3]!)}`;
}

/**
 * `hvc1.…` from an H.265 SPS (2-byte NAL header first) per ISO/IEC 14496-15 Annex E.3:
 * profile space and idc, the compatibility flags in reverse bit order, tier and level,
 * then the constraint bytes without trailing zero bytes.
 * @example hevcCodec(mainProfileSps) // "hvc1.1.6.L93.B0"
 */
export function hevcCodec(sps: Uint8Array): string | undefined {
  if (sps.length < 15) return undefined;
  const ptl = sps[3]!;
  const space = ptl >> 6;
  const tier = (ptl >> 5) & 1;
  const profile = ptl & 0x1f;
  const compat = ((sps[4]! << 24) | (sps[5]! << 16) | (sps[6]! << 8) | sps[7]!) >>> 0;
  let reversed = 0;
  for (let i = 0; i < 32; i++) if (compat & (1 << i)) reversed |= 1 << (31 - i);
  const constraints = [...sps.subarray(8, 14)];
  while (constraints.length > 0 && constraints[constraints.length - 1] === 0) constraints.pop();
  const parts = [
    "hvc1",
    `${space === 0 ? "" : "ABC"[space - 1]}${profile}`,
    (reversed >>> 0).toString(16).toUpperCase(),
    `${tier ? "H" : "L"}${sps[14]!}`,
    ...constraints.map((b) => b.toString(16).toUpperCase()),
  ];
  return parts.join(".");
}

/**
 * The CODECS attribute of a program: the video's (once its SPS was seen) and every audio
 * stream's, in PMT order; undefined while the video's SPS is still unknown.
 */
export function programCodecs(pmt: Pmt, sps: Uint8Array | undefined): string | undefined {
  const out: string[] = [];
  for (const s of pmt.streams) {
    const video = videoCodecOf(s);
    if (video !== undefined) {
      if (sps === undefined) return undefined;
      const v = video === "h264" ? avcCodec(sps) : hevcCodec(sps);
      if (v === undefined) return undefined;
      out.push(v);
      continue;
    }
    const a = audioCodecOf(s);
    if (a !== undefined && !out.includes(a)) out.push(a);
  }
  return out.length === 0 ? undefined : out.join(",");
}
