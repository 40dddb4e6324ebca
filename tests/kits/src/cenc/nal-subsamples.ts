/**
 * Subsample maps for NAL-structured video (ISO/IEC 23001-7 §10.1 / §10.4, ISO/IEC 14496-15),
 * as the test encryptor applies them.
 */
export interface NalSubsampleRules {
  nalLengthSize: number;
  /** 1 for AVC NAL headers, 2 for HEVC. */
  nalHeaderSize: number;
  /** `hevc` decides which NAL unit types carry slice data. */
  codec: "avc" | "hevc";
  /** Bytes of each VCL NAL payload left clear after the header (cbcs: to cover the slice header). */
  clearLeadIn: number;
  /** Shift protected bytes to 16-byte multiples (common for cenc/cens/cbc1). */
  blockAlign: boolean;
}

function isVcl(codec: "avc" | "hevc", firstByte: number): boolean {
  // 14496-10 Table 7-1: types 1..5 are coded slices; 23008-2 Table 7-1: types 0..31 are VCL.
  if (codec === "avc") {
    const t = firstByte & 0x1f;
    return t >= 1 && t <= 5;
  }
  return ((firstByte >> 1) & 0x3f) < 32;
}

/**
 * Builds `[clear, protected, ...]` for one sample: non-VCL NAL units stay clear, a VCL
 * unit keeps its length field, header and lead-in clear. Clear runs over 65535 bytes are
 * split since BytesOfClearData is 16 bits. Returns null if the sample is not NAL-parsable.
 */
export function nalSubsamples(sample: Buffer, rules: NalSubsampleRules): number[] | null {
  const out: number[] = [];
  let clear = 0;
  let pos = 0;
  const flush = (protectedBytes: number): void => {
    while (clear > 0xffff) {
      out.push(0xffff, 0);
      clear -= 0xffff;
    }
    out.push(clear, protectedBytes);
    clear = 0;
  };
  while (pos < sample.length) {
    if (pos + rules.nalLengthSize > sample.length) return null;
    const len = sample.readUIntBE(pos, rules.nalLengthSize);
    const end = pos + rules.nalLengthSize + len;
    if (end > sample.length) return null;
    const first = sample[pos + rules.nalLengthSize] ?? 0;
    const lead = rules.nalLengthSize + rules.nalHeaderSize + rules.clearLeadIn;
    if (len > 0 && isVcl(rules.codec, first) && end - pos > lead) {
      let prot = end - pos - lead;
      let clr = lead;
      if (rules.blockAlign) {
        clr += prot % 16;
        prot -= prot % 16;
      }
      clear += clr;
      if (prot > 0) flush(prot);
    } else {
      clear += end - pos;
    }
    pos = end;
  }
  if (clear > 0 || out.length === 0) flush(0);
  return out;
}

/**
 * A subsample layout (clear, protected, clear, protected, …) over `length` bytes from
 * arbitrary `[clear, protected]` cuts: each cut clamped to what is left, the remainder
 * added to the last protected range, so the sizes always add up to the sample.
 */
export function layoutFromCuts(
  length: number,
  cuts: readonly (readonly [number, number])[],
): number[] {
  const subsamples: number[] = [];
  let left = length;
  for (const [c, p] of cuts) {
    const clear = Math.min(c, left);
    const prot = Math.min(p, left - clear);
    subsamples.push(clear, prot);
    left -= clear + prot;
  }
  subsamples[subsamples.length - 1]! += left;
  return subsamples;
}
