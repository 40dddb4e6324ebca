// Picture size from a sequence parameter set: ITU-T H.264 7.3.2.1.1 and H.265 7.3.2.2.
// Only the syntax elements before the size (and the cropping window) are read.

import type { VideoCodec } from "./nal-scan.js";

export interface PictureSize {
  readonly width: number;
  readonly height: number;
}

/** Exp-Golomb reader over RBSP bytes (emulation prevention already removed). */
class BitReader {
  private bit = 0;
  constructor(private readonly bytes: Uint8Array) {}

  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.bytes[this.bit >> 3];
      if (byte === undefined) throw new RangeError("SPS cut short");
      v = v * 2 + ((byte >> (7 - (this.bit & 7))) & 1);
      this.bit++;
    }
    return v;
  }

  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) if (++zeros > 31) throw new RangeError("bad Exp-Golomb code");
    return 2 ** zeros - 1 + this.u(zeros);
  }

  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -k / 2;
  }
}

/**
 * The displayed picture size (after the cropping / conformance window) from an SPS,
 * NAL header first; undefined when the bytes end before the size or do not parse.
 * @example spsPictureSize("h264", sps) // { width: 1280, height: 720 }
 */
export function spsPictureSize(codec: VideoCodec, sps: Uint8Array): PictureSize | undefined {
  try {
    return codec === "h264" ? avcSize(new BitReader(sps.subarray(1))) : hevcSize(sps);
  } catch {
    return undefined;
  }
}

/** profile_idc values whose SPS carries chroma_format_idc and bit depths (7.3.2.1.1). */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function avcSize(r: BitReader): PictureSize | undefined {
  const profile = r.u(8);
  r.u(16); // constraint flags, level_idc
  r.ue(); // seq_parameter_set_id
  let chroma = 1;
  if (HIGH_PROFILES.has(profile)) {
    chroma = r.ue();
    if (chroma === 3) r.u(1); // separate_colour_plane_flag
    r.ue(); // bit_depth_luma_minus8
    r.ue(); // bit_depth_chroma_minus8
    r.u(1); // qpprime_y_zero_transform_bypass_flag
    if (r.u(1) === 1) {
      const lists = chroma === 3 ? 12 : 8;
      for (let i = 0; i < lists; i++) if (r.u(1) === 1) skipScalingList(r, i < 6 ? 16 : 64);
    }
  }
  r.ue(); // log2_max_frame_num_minus4
  const pocType = r.ue();
  if (pocType === 0) r.ue();
  else if (pocType === 1) {
    r.u(1);
    r.se();
    r.se();
    const n = r.ue();
    for (let i = 0; i < n; i++) r.se();
  }
  r.ue(); // max_num_ref_frames
  r.u(1); // gaps_in_frame_num_value_allowed_flag
  const wMbs = r.ue() + 1;
  const hMaps = r.ue() + 1;
  const frameMbsOnly = r.u(1);
  if (frameMbsOnly === 0) r.u(1);
  r.u(1); // direct_8x8_inference_flag
  let crop = [0, 0, 0, 0];
  if (r.u(1) === 1) crop = [r.ue(), r.ue(), r.ue(), r.ue()];
  // 7.4.2.1.1: crop units in luma samples depend on the chroma format and field coding.
  const subW = chroma === 1 || chroma === 2 ? 2 : 1;
  const subH = chroma === 1 ? 2 : 1;
  const unitX = chroma === 0 ? 1 : subW;
  const unitY = (chroma === 0 ? 1 : subH) * (2 - frameMbsOnly);
  const width = wMbs * 16 - unitX * (crop[0]! + crop[1]!);
  const height = (2 - frameMbsOnly) * hMaps * 16 - unitY * (crop[2]! + crop[3]!);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function skipScalingList(r: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + r.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

function hevcSize(sps: Uint8Array): PictureSize | undefined {
  const r = new BitReader(sps.subarray(2));
  r.u(4); // sps_video_parameter_set_id
  const subLayers = r.u(3);
  r.u(1); // sps_temporal_id_nesting_flag
  // profile_tier_level(1, subLayers) (7.3.3): general profile (88 bits) and level (8).
  r.u(32);
  r.u(32);
  r.u(32);
  const present: [boolean, boolean][] = [];
  for (let i = 0; i < subLayers; i++) present.push([r.u(1) === 1, r.u(1) === 1]);
  if (subLayers > 0) for (let i = subLayers; i < 8; i++) r.u(2);
  for (const [profile, level] of present) {
    if (profile) {
      r.u(32);
      r.u(32);
      r.u(24);
    }
    if (level) r.u(8);
  }
  r.ue(); // sps_seq_parameter_set_id
  const chroma = r.ue();
  if (chroma === 3) r.u(1);
  let width = r.ue();
  let height = r.ue();
  if (r.u(1) === 1) {
    // conformance_window offsets are in chroma samples (7.4.3.2.1).
    const subW = chroma === 1 || chroma === 2 ? 2 : 1;
    const subH = chroma === 1 ? 2 : 1;
    width -= subW * (r.ue() + r.ue());
    height -= subH * (r.ue() + r.ue());
  }
  return width > 0 && height > 0 ? { width, height } : undefined;
}
