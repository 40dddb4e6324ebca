import { type BoxHeader, payloadStart } from "./box-reader.js";
import { raise } from "./parse-result.js";

/** Boxes whose payload is only child boxes (ISO/IEC 14496-12 §8). */
const PLAIN_CONTAINERS = new Set([
  "moov",
  "trak",
  "mdia",
  "minf",
  "stbl",
  "mvex",
  "moof",
  "traf",
  "edts",
  "dinf",
  "udta",
  "sinf",
  "schi",
  "mfra",
  "tref",
  "rinf",
]);

/** Visual sample entries: 8 bytes SampleEntry + 70 bytes VisualSampleEntry before children (§12.1.3). */
export const VISUAL_SAMPLE_ENTRIES = new Set([
  "avc1",
  "avc3",
  "hvc1",
  "hev1",
  "encv",
  "vp09",
  "av01",
  "dvh1",
  "dvhe",
  "mp4v",
]);

/** Audio sample entries: 8 + 20 bytes before children (§12.2.3), more for QuickTime sound v1/v2. */
export const AUDIO_SAMPLE_ENTRIES = new Set([
  "mp4a",
  "enca",
  "ac-3",
  "ec-3",
  "Opus",
  "fLaC",
  "ac-4",
  "alac",
]);

/**
 * Offset of the first child box of `box`, or `null` when the box is not a
 * container this toolkit descends into. Raises when the fixed part is truncated.
 */
export function childrenStart(buf: Buffer, box: BoxHeader): number | null {
  const p = payloadStart(box);
  if (PLAIN_CONTAINERS.has(box.type)) return p;
  // stsd and dref are FullBoxes followed by a 32-bit entry count (§8.5.2, §8.7.2).
  if (box.type === "stsd" || box.type === "dref") return checked(box, p + 8);
  if (VISUAL_SAMPLE_ENTRIES.has(box.type)) return checked(box, p + 78);
  if (AUDIO_SAMPLE_ENTRIES.has(box.type)) {
    checked(box, p + 28);
    // QuickTime sound description versions reuse the first reserved bytes as a version.
    const version = buf.readUInt16BE(p + 8);
    if (version === 1) return checked(box, p + 28 + 16);
    if (version === 2) return checked(box, p + 28 + 36);
    return p + 28;
  }
  return null;
}

function checked(box: BoxHeader, offset: number): number {
  if (offset > box.end)
    raise(box.type, `box too small for its fixed fields (${box.end - box.start} bytes)`);
  return offset;
}
