import { type BoxHeader, fullBoxAt } from "../mp4/box-reader.js";
import { ByteReader } from "../mp4/byte-reader.js";
import { raise } from "../mp4/parse-result.js";

/** Encryption parameters of one sample: the `tenc` defaults or a `seig` sample group entry. */
export interface CryptoParams {
  isProtected: boolean;
  /** Per_Sample_IV_Size: 0, 8 or 16. */
  perSampleIvSize: number;
  kid: Buffer;
  /** Constant IV (ISO/IEC 23001-7 §8.2.2) when perSampleIvSize is 0. */
  constantIv?: Buffer;
  cryptByteBlock: number;
  skipByteBlock: number;
}

/** The tail shared by `tenc` (ISO/IEC 23001-7 §8.2) and `seig` entries (§6): isProtected, IV size, KID, constant IV. */
function readParamsTail(
  r: ByteReader,
  box: string,
): Omit<CryptoParams, "cryptByteBlock" | "skipByteBlock"> {
  const isProtected = r.u8("isProtected");
  const perSampleIvSize = r.u8("Per_Sample_IV_Size");
  const kid = r.bytes(16, "KID");
  if (perSampleIvSize !== 0 && perSampleIvSize !== 8 && perSampleIvSize !== 16)
    raise(box, `invalid Per_Sample_IV_Size ${perSampleIvSize}`);
  if (isProtected === 1 && perSampleIvSize === 0) {
    const n = r.u8("constant_IV_size");
    if (n !== 8 && n !== 16) raise(box, `invalid constant_IV_size ${n}`);
    return { isProtected: true, perSampleIvSize, kid, constantIv: r.bytes(n, "constant_IV") };
  }
  return { isProtected: isProtected === 1, perSampleIvSize, kid };
}

/** Parses a `tenc` box (ISO/IEC 23001-7 §8.2). Raises on malformed input. */
export function parseTenc(buf: Buffer, box: BoxHeader): CryptoParams {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "tenc");
  r.skip(1, "reserved");
  // Version 1 adds the pattern (§8.2.2); version 0 has it reserved.
  const pattern = r.u8("pattern");
  const tail = readParamsTail(r, "tenc");
  return fb.version === 0
    ? { ...tail, cryptByteBlock: 0, skipByteBlock: 0 }
    : { ...tail, cryptByteBlock: pattern >> 4, skipByteBlock: pattern & 15 };
}

/** Entries of a `seig` sample group description (ISO/IEC 23001-7 §6, in an `sgpd`). */
export function parseSeigSgpd(buf: Buffer, box: BoxHeader): CryptoParams[] | null {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "sgpd");
  if (r.fourcc("grouping_type") !== "seig") return null;
  // ISO/IEC 14496-12 §8.9.3: v1 has default_length (0 = per-entry length), v2+ a default index.
  const defaultLength = fb.version === 1 ? r.u32("default_length") : 0;
  if (fb.version >= 2) r.u32("default_sample_description_index");
  const count = r.u32("entry_count");
  if (count > r.remaining / 20) raise("sgpd", `entry_count ${count} exceeds the box`);
  const out: CryptoParams[] = [];
  for (let i = 0; i < count; i++) {
    const len =
      fb.version === 1 && defaultLength === 0 ? r.u32("description_length") : defaultLength;
    const start = r.pos;
    r.skip(1, "reserved");
    const pattern = r.u8("pattern");
    out.push({
      ...readParamsTail(r, "sgpd"),
      cryptByteBlock: pattern >> 4,
      skipByteBlock: pattern & 15,
    });
    if (len > 0) {
      if (r.pos - start > len)
        raise("sgpd", `seig entry longer than its description_length ${len}`);
      r.pos = start;
      r.skip(len, "seig entry");
    }
  }
  return out;
}

/** `sbgp` runs: sample_count consecutive samples map to group_description_index (ISO/IEC 14496-12 §8.9.2). */
export interface SampleToGroup {
  runs: Array<{ count: number; index: number }>;
}

/** Parses an `sbgp` of grouping type `seig`, or returns null for other grouping types. */
export function parseSeigSbgp(buf: Buffer, box: BoxHeader): SampleToGroup | null {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "sbgp");
  if (r.fourcc("grouping_type") !== "seig") return null;
  if (fb.version === 1) r.u32("grouping_type_parameter");
  const count = r.u32("entry_count");
  if (count * 8 > r.remaining) raise("sbgp", `entry_count ${count} exceeds the box`);
  const runs: Array<{ count: number; index: number }> = [];
  for (let i = 0; i < count; i++)
    runs.push({ count: r.u32("sample_count"), index: r.u32("group_description_index") });
  return { runs };
}

/** Fields of a `pssh` box (ISO/IEC 23001-7 §8.1). */
export interface PsshInfo {
  systemId: string;
  kids: string[];
  data: Buffer;
}

/** Parses a `pssh` box. Raises on malformed input. */
export function parsePssh(buf: Buffer, box: BoxHeader): PsshInfo {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "pssh");
  const systemId = r.bytes(16, "SystemID").toString("hex");
  const kids: string[] = [];
  if (fb.version > 0) {
    const n = r.u32("KID_count");
    r.need(n * 16, "KIDs");
    for (let i = 0; i < n; i++) kids.push(r.bytes(16, "KID").toString("hex"));
  }
  const data = r.bytes(r.u32("DataSize"), "Data");
  return { systemId, kids, data };
}
