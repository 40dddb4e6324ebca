import { type BoxHeader, boxesIn, findBox, fullBoxAt, payloadStart } from "./box-reader.js";
import { ByteReader } from "./byte-reader.js";
import { type EsdsConfig, parseAvcC, parseEsds, parseHvcC } from "./codec-config.js";
import { avcCodecString, hevcCodecString, mp4aCodecString } from "./codec-string.js";
import { AUDIO_SAMPLE_ENTRIES, childrenStart, VISUAL_SAMPLE_ENTRIES } from "./container-layout.js";
import { raise } from "./parse-result.js";

/** Protection scheme information of an `encv`/`enca` entry (ISO/IEC 14496-12 §8.12). */
export interface ProtectionSchemeInfo {
  sinf: BoxHeader;
  /** `frma` data_format: the sample entry type before encryption. */
  originalFormat: string;
  /** `schm` scheme_type, e.g. `cenc` or `cbcs`. */
  schemeType: string;
  schemeVersion: number;
  /** The `schi` container (holds `tenc` for Common Encryption). */
  schi?: BoxHeader;
}

/** One parsed sample description (an entry of `stsd`). */
export interface SampleEntryInfo {
  box: BoxHeader;
  /** Entry type as stored (`encv` for protected video). */
  type: string;
  /** Entry type with protection undone (`frma` format when protected). */
  format: string;
  /** RFC 6381 codec string for HLS `CODECS`, when derivable. */
  codec?: string;
  width?: number;
  height?: number;
  channelCount?: number;
  sampleRate?: number;
  /** NAL unit length field size for AVC/HEVC. */
  nalLengthSize?: number;
  esds?: EsdsConfig;
  protection?: ProtectionSchemeInfo;
  children: BoxHeader[];
}

/** Parses a protection scheme info box. Raises on malformed boxes. */
export function parseSinf(buf: Buffer, sinf: BoxHeader): ProtectionSchemeInfo {
  const kids = boxesIn(buf, payloadStart(sinf), sinf.end, "sinf");
  const frma = findBox(kids, "frma");
  if (!frma) raise("sinf", "missing frma");
  const fr = new ByteReader(buf, payloadStart(frma), frma.end, "frma");
  const originalFormat = fr.fourcc("data_format");
  const schm = findBox(kids, "schm");
  let schemeType = "";
  let schemeVersion = 0;
  if (schm) {
    const fb = fullBoxAt(buf, schm);
    const sr = new ByteReader(buf, fb.bodyStart, schm.end, "schm");
    schemeType = sr.fourcc("scheme_type");
    schemeVersion = sr.u32("scheme_version");
  }
  const schi = findBox(kids, "schi");
  return schi
    ? { sinf, originalFormat, schemeType, schemeVersion, schi }
    : { sinf, originalFormat, schemeType, schemeVersion };
}

/** Parses one `stsd` entry, including codec configuration. Raises on malformed boxes. */
export function parseSampleEntry(buf: Buffer, box: BoxHeader): SampleEntryInfo {
  const first = childrenStart(buf, box);
  const children = first === null ? [] : boxesIn(buf, first, box.end, box.type);
  const info: SampleEntryInfo = { box, type: box.type, format: box.type, children };
  const sinf = findBox(children, "sinf");
  if (sinf) {
    info.protection = parseSinf(buf, sinf);
    info.format = info.protection.originalFormat;
  }
  const p = payloadStart(box);
  if (VISUAL_SAMPLE_ENTRIES.has(box.type)) {
    // §12.1.3: width/height follow 8 bytes of SampleEntry and 16 bytes of pre_defined/reserved.
    const r = new ByteReader(buf, p + 24, box.end, box.type);
    info.width = r.u16("width");
    info.height = r.u16("height");
  } else if (AUDIO_SAMPLE_ENTRIES.has(box.type)) {
    const r = new ByteReader(buf, p + 16, box.end, box.type);
    info.channelCount = r.u16("channelcount");
    r.skip(6, "samplesize/pre_defined");
    info.sampleRate = r.u32("samplerate") >>> 16;
  }
  describeCodec(buf, info);
  return info;
}

function describeCodec(buf: Buffer, info: SampleEntryInfo): void {
  const avcC = findBox(info.children, "avcC");
  const hvcC = findBox(info.children, "hvcC");
  const esds = findBox(info.children, "esds");
  if (avcC && (info.format === "avc1" || info.format === "avc3")) {
    const c = parseAvcC(buf, avcC);
    info.codec = avcCodecString(info.format, c);
    info.nalLengthSize = c.nalLengthSize;
  } else if (hvcC && (info.format === "hvc1" || info.format === "hev1")) {
    const c = parseHvcC(buf, hvcC);
    info.codec = hevcCodecString(info.format, c);
    info.nalLengthSize = c.nalLengthSize;
  } else if (esds && info.format === "mp4a") {
    const c = parseEsds(buf, esds);
    info.esds = c;
    info.codec = mp4aCodecString(c);
    // The AudioSpecificConfig is authoritative over the sample entry's 16.16 rate (which caps at 65535 Hz).
    if (c.sampleRate !== undefined) info.sampleRate = c.sampleRate;
    if (c.channelConfiguration) info.channelCount = c.channelConfiguration;
  } else if (
    info.format === "ac-3" ||
    info.format === "ec-3" ||
    info.format === "Opus" ||
    info.format === "fLaC"
  ) {
    info.codec = info.format === "Opus" ? "opus" : info.format === "fLaC" ? "flac" : info.format;
  }
}
