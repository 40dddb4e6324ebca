import type { TsMuxer } from "./ts-muxer.js";

// RFC 8216bis 3.4: packed audio segments (ADTS AAC here) open with an ID3v2 tag whose
// PRIV frame `com.apple.streaming.transportStreamTimestamp` gives the first frame's
// 33-bit MPEG-2 PTS; the frames follow back to back.

const TIMESTAMP_OWNER = "com.apple.streaming.transportStreamTimestamp";
/** ISO/IEC 14496-3 Table 1.18: sampling_frequency_index to Hz. */
const RATES = [
  96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
];
/** ADTS frames per PES: fewer PES headers and less stuffing than one per frame. */
const FRAMES_PER_PES = 4;

/** Does this segment look like packed audio (ID3 first, or an ADTS sync word)? */
export function isPackedAudio(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) return true;
  return bytes[0] === 0xff && (bytes[1]! & 0xf6) === 0xf0;
}

/** ID3v2 syncsafe integer (7 bits a byte). */
function syncsafe(b: Uint8Array, at: number): number {
  return (
    ((b[at]! & 0x7f) << 21) |
    ((b[at + 1]! & 0x7f) << 14) |
    ((b[at + 2]! & 0x7f) << 7) |
    (b[at + 3]! & 0x7f)
  );
}

/** The transportStreamTimestamp of one ID3v2 tag (its frames from `at` to `end`), if any. */
function timestampIn(b: Buffer, at: number, end: number, version: number): number | undefined {
  while (at + 10 <= end) {
    const id = b.toString("latin1", at, at + 4);
    if (id === "\0\0\0\0") break;
    const size = version >= 4 ? syncsafe(b, at + 4) : b.readUInt32BE(at + 4);
    const data = at + 10;
    if (id === "PRIV" && data + size <= end) {
      const nul = b.indexOf(0, data);
      if (nul >= 0 && nul + 9 <= data + size && b.toString("latin1", data, nul) === TIMESTAMP_OWNER)
        return Number(b.readBigUInt64BE(nul + 1) & 0x1ffffffffn);
    }
    at = data + size;
  }
  return undefined;
}

/**
 * A packed-audio segment (ID3 tags, then ADTS AAC frames) as TS packets of `muxer`
 * (`{ audio: "aac" }`): PES units of {@link FRAMES_PER_PES} frames, each at the tag's
 * timestamp plus 1024 samples a frame. Answers why not for anything else (no timestamp,
 * not ADTS: packed MP3 or AC-3 is not carried).
 * @example const packets = packedAudioToTs(bytes, new TsMuxer({ audio: "aac" }));
 */
export function packedAudioToTs(bytes: Buffer, muxer: TsMuxer): Buffer[] | string {
  let at = 0;
  let pts: number | undefined;
  while (at + 10 <= bytes.length && bytes.toString("latin1", at, at + 3) === "ID3") {
    const version = bytes[at + 3]!;
    const flags = bytes[at + 5]!;
    const end = at + 10 + syncsafe(bytes, at + 6);
    let frames = at + 10;
    // An extended header (flag 0x40): its size, syncsafe in v2.4 (whole), plain in v2.3 (after it).
    if (flags & 0x40)
      frames += version >= 4 ? syncsafe(bytes, frames) : 4 + bytes.readUInt32BE(frames);
    pts ??= timestampIn(bytes, frames, Math.min(end, bytes.length), version);
    at = end + (flags & 0x10 ? 10 : 0);
  }
  if (pts === undefined) return "packed audio without its ID3 transportStreamTimestamp";
  const out: Buffer[] = [];
  let group: Buffer[] = [];
  let groupPts = pts;
  let t = pts;
  while (at + 7 <= bytes.length) {
    if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xf6) !== 0xf0)
      return "packed audio that is not ADTS AAC";
    const length = ((bytes[at + 3]! & 0x03) << 11) | (bytes[at + 4]! << 3) | (bytes[at + 5]! >> 5);
    const rate = RATES[(bytes[at + 2]! >> 2) & 0x0f];
    if (length < 7 || rate === undefined || at + length > bytes.length)
      return "a broken ADTS frame in packed audio";
    if (group.length === 0) groupPts = Math.round(t);
    group.push(bytes.subarray(at, at + length));
    // 1024 samples per frame (1 + number_of_raw_data_blocks_in_frame blocks).
    t += ((1 + (bytes[at + 6]! & 0x03)) * 1024 * 90_000) / rate;
    at += length;
    if (group.length === FRAMES_PER_PES) {
      out.push(...muxer.audio(Buffer.concat(group), groupPts));
      group = [];
    }
  }
  if (group.length > 0) out.push(...muxer.audio(Buffer.concat(group), groupPts));
  return out;
}
