// Random-access detection in the first NAL units of a video PES (ITU-T H.264 7.4.1.2,
// H.265 7.4.2.2): no decoding, only NAL headers and the SPS bytes the codecs string needs.

export type VideoCodec = "h264" | "h265";

/** H.264 NAL types: 1..5 are coded slices (VCL), 5 an IDR slice, 7 the SPS. */
const H264_IDR = 5;
const H264_SPS = 7;
/** H.265 NAL types: 0..31 VCL, 16..21 IRAP (BLA, IDR, CRA), 33 the SPS. */
const H265_SPS = 33;
/** SPS bytes kept: enough for profile, level and picture size of either codec. */
const SPS_KEEP = 96;
/** A PES whose first slice is not found within this many bytes is judged not random access. */
const SCAN_LIMIT = 256 * 1024;

/**
 * Streams over the elementary-stream bytes of one video PES until its first coded slice
 * and reports whether that slice is random access (IDR / IRAP). Start codes split across
 * packet payloads are found; bytes after the first slice header are never looked at.
 * @example
 * const s = new AccessUnitScanner("h264");
 * s.push(esBytes); // s.done, s.randomAccess, s.sps
 */
export class AccessUnitScanner {
  done = false;
  randomAccess = false;
  /** The first SPS met (NAL header included, emulation prevention removed), first 96 bytes. */
  sps: Buffer | undefined;
  private zeros = 0;
  private expectHeader = false;
  private capture: number[] | undefined;
  private scanned = 0;

  constructor(private readonly codec: VideoCodec) {}

  /** Starts over for a new PES. */
  reset(): void {
    this.done = false;
    this.randomAccess = false;
    this.zeros = 0;
    this.expectHeader = false;
    this.capture = undefined;
    this.scanned = 0;
  }

  push(bytes: Uint8Array): void {
    if (this.done) return;
    for (let i = 0; i < bytes.length; i++) {
      const x = bytes[i]!;
      if (this.expectHeader) {
        this.expectHeader = false;
        this.onNalHeader(x);
        if (this.done) return;
        this.zeros = x === 0 ? 1 : 0;
        continue;
      }
      if (x === 1 && this.zeros >= 2) {
        this.endCapture();
        this.expectHeader = true;
        this.zeros = 0;
        continue;
      }
      this.zeros = x === 0 ? this.zeros + 1 : 0;
      if (this.capture !== undefined) {
        this.capture.push(x);
        if (this.capture.length >= SPS_KEEP + 8) this.endCapture();
      }
    }
    this.scanned += bytes.length;
    if (this.scanned > SCAN_LIMIT) this.done = true;
  }

  private onNalHeader(x: number): void {
    if (this.codec === "h264") {
      const type = x & 0x1f;
      if (type === H264_SPS) this.capture = [x];
      else if (type >= 1 && type <= 5) {
        this.done = true;
        this.randomAccess = type === H264_IDR;
      }
      return;
    }
    const type = (x >> 1) & 0x3f;
    if (type === H265_SPS) this.capture = [x];
    else if (type <= 31) {
      this.done = true;
      this.randomAccess = type >= 16 && type <= 21;
    }
  }

  private endCapture(): void {
    const c = this.capture;
    this.capture = undefined;
    if (c === undefined || this.sps !== undefined) return;
    while (c.length > 0 && c[c.length - 1] === 0) c.pop();
    this.sps = unescapeRbsp(c).subarray(0, SPS_KEEP);
  }
}

/** Drops emulation_prevention_three_byte (00 00 03 → 00 00; H.264 7.4.1). */
export function unescapeRbsp(bytes: readonly number[] | Uint8Array): Buffer {
  const out: number[] = [];
  let zeros = 0;
  for (const b of bytes) {
    if (zeros >= 2 && b === 3) {
      zeros = 0;
      continue;
    }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}
