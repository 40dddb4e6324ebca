import { type BoxHeader, fullBoxAt, payloadStart } from "./box-reader.js";
import { ByteReader } from "./byte-reader.js";
import { raise } from "./parse-result.js";

/** Fields of an AVCDecoderConfigurationRecord (ISO/IEC 14496-15 §5.3.3.1). */
export interface AvcConfig {
  profile: number;
  compatibility: number;
  level: number;
  nalLengthSize: number;
}

/** Fields of an HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 §8.3.3.1). */
export interface HevcConfig {
  profileSpace: number;
  tier: number;
  profile: number;
  compatibilityFlags: number;
  /** The six constraint indicator bytes. */
  constraintFlags: Buffer;
  level: number;
  nalLengthSize: number;
}

/** Decoder config carried in an `esds` (ISO/IEC 14496-1 §7.2.6.6) plus its AudioSpecificConfig. */
export interface EsdsConfig {
  objectTypeIndication: number;
  /** MPEG-4 audio object type from the AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1), if present. */
  audioObjectType?: number;
  sampleRate?: number;
  channelConfiguration?: number;
  /** The AudioSpecificConfig's bytes (an ADTS header is written from them: `ts/adts.ts`). */
  audioSpecificConfig?: Buffer;
}

/** Parses an `avcC` box. Raises on truncation. */
export function parseAvcC(buf: Buffer, box: BoxHeader): AvcConfig {
  const r = new ByteReader(buf, payloadStart(box), box.end, "avcC");
  const version = r.u8("configurationVersion");
  if (version !== 1) raise("avcC", `unsupported configurationVersion ${version}`);
  const profile = r.u8("AVCProfileIndication");
  const compatibility = r.u8("profile_compatibility");
  const level = r.u8("AVCLevelIndication");
  const nalLengthSize = (r.u8("lengthSizeMinusOne") & 3) + 1;
  return { profile, compatibility, level, nalLengthSize };
}

/** Parses an `hvcC` box. Raises on truncation. */
export function parseHvcC(buf: Buffer, box: BoxHeader): HevcConfig {
  const r = new ByteReader(buf, payloadStart(box), box.end, "hvcC");
  r.u8("configurationVersion");
  const b = r.u8("general_profile");
  const compatibilityFlags = r.u32("general_profile_compatibility_flags");
  const constraintFlags = r.bytes(6, "general_constraint_indicator_flags");
  const level = r.u8("general_level_idc");
  // min_spatial_segmentation (2), parallelism (1), chroma (1), bit depths (2), avgFrameRate (2)
  r.skip(8, "hvcC fixed fields");
  const nalLengthSize = (r.u8("lengthSizeMinusOne") & 3) + 1;
  return {
    profileSpace: b >> 6,
    tier: (b >> 5) & 1,
    profile: b & 0x1f,
    compatibilityFlags,
    constraintFlags,
    level,
    nalLengthSize,
  };
}

// ISO/IEC 14496-3 §1.6.3.4 samplingFrequencyIndex table.
const AAC_RATES = [
  96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
];

/** Reads an expandable descriptor size (ISO/IEC 14496-1 §8.3.3): up to four 7-bit groups. */
function descriptorSize(r: ByteReader): number {
  let size = 0;
  for (let i = 0; i < 4; i++) {
    const b = r.u8("descriptor size");
    size = (size << 7) | (b & 0x7f);
    if ((b & 0x80) === 0) return size;
  }
  return size;
}

/** Parses an `esds` box down to the AudioSpecificConfig. Raises on truncation. */
export function parseEsds(buf: Buffer, box: BoxHeader): EsdsConfig {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "esds");
  if (r.u8("ES_DescrTag") !== 0x03) raise("esds", "missing ES_Descriptor");
  const esEnd = Math.min(box.end, descriptorSize(r) + r.pos);
  const es = new ByteReader(buf, r.pos, esEnd, "esds");
  es.u16("ES_ID");
  const esFlags = es.u8("ES flags");
  if (esFlags & 0x80) es.skip(2, "dependsOn_ES_ID");
  if (esFlags & 0x40) es.skip(es.u8("URLlength"), "URLstring");
  if (esFlags & 0x20) es.skip(2, "OCR_ES_Id");
  if (es.u8("DecoderConfigDescrTag") !== 0x04) raise("esds", "missing DecoderConfigDescriptor");
  const dcEnd = Math.min(esEnd, descriptorSize(es) + es.pos);
  const dc = new ByteReader(buf, es.pos, dcEnd, "esds");
  const objectTypeIndication = dc.u8("objectTypeIndication");
  dc.skip(12, "DecoderConfigDescriptor fields");
  const out: EsdsConfig = { objectTypeIndication };
  if (dc.remaining < 2 || dc.u8("DecSpecificInfoTag") !== 0x05) return out;
  const asLen = descriptorSize(dc);
  if (asLen === 0) return out;
  const asc = dc.bytes(Math.min(asLen, dc.remaining), "AudioSpecificConfig");
  return { ...out, ...parseAudioSpecificConfig(asc), audioSpecificConfig: Buffer.from(asc) };
}

/** Reads audioObjectType, sampling rate and channel configuration from an AudioSpecificConfig. */
export function parseAudioSpecificConfig(
  asc: Buffer,
): Pick<EsdsConfig, "audioObjectType" | "sampleRate" | "channelConfiguration"> {
  let bit = 0;
  const bits = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) {
      const byte = asc[bit >> 3];
      if (byte === undefined) raise("esds", "truncated AudioSpecificConfig");
      v = (v << 1) | ((byte >> (7 - (bit & 7))) & 1);
    }
    return v;
  };
  let audioObjectType = bits(5);
  if (audioObjectType === 31) audioObjectType = 32 + bits(6);
  const index = bits(4);
  const sampleRate = index === 0xf ? bits(24) : AAC_RATES[index];
  const channelConfiguration = bits(4);
  return sampleRate === undefined
    ? { audioObjectType, channelConfiguration }
    : { audioObjectType, sampleRate, channelConfiguration };
}
