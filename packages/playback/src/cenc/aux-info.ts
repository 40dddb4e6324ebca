import { type BoxHeader, fullBoxAt } from "../mp4/box-reader.js";
import { ByteReader } from "../mp4/byte-reader.js";
import { raise } from "../mp4/parse-result.js";

/** Sample auxiliary information for Common Encryption (ISO/IEC 23001-7 §7.1): IV and subsample map. */
export interface SampleAux {
  /** Empty when the IV size is 0 (constant IV applies). */
  iv: Buffer;
  /** Flattened `[clear, protected, ...]`, or null for whole-sample encryption. */
  subsamples: number[] | null;
}

/** Reads a subsample map; a count of 0 means the whole sample is protected (returns null). */
function readSubsamples(r: ByteReader): number[] | null {
  const n = r.u16("subsample_count");
  if (n === 0) return null;
  r.need(n * 6, `${n} subsample entries`);
  const out = new Array<number>(n * 2);
  for (let i = 0; i < n; i++) {
    out[2 * i] = r.u16("BytesOfClearData");
    out[2 * i + 1] = r.u32("BytesOfProtectedData");
  }
  return out;
}

/**
 * Parses a `senc` box (ISO/IEC 23001-7 §7.2). `ivSizeOf(i)` gives sample i's
 * Per_Sample_IV_Size (from `tenc` or its `seig` group); the sample count must
 * match the track runs.
 */
export function parseSenc(
  buf: Buffer,
  box: BoxHeader,
  sampleCount: number,
  ivSizeOf: (i: number) => number,
): SampleAux[] {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "senc");
  let override: number | undefined;
  if (fb.flags & 1) {
    // Legacy override of AlgorithmID / IV size / KID (PIFF-style senc).
    r.u24("AlgorithmID");
    override = r.u8("IV_size");
    r.skip(16, "KID");
  }
  const count = r.u32("sample_count");
  if (count !== sampleCount)
    raise("senc", `sample_count ${count} does not match ${sampleCount} samples in trun`);
  const withSub = (fb.flags & 2) !== 0;
  const out: SampleAux[] = [];
  for (let i = 0; i < count; i++) {
    const ivSize = override ?? ivSizeOf(i);
    const iv = r.bytes(ivSize, `IV of sample ${i}`);
    out.push({ iv, subsamples: withSub ? readSubsamples(r) : null });
  }
  return out;
}

/** Parsed `saiz` (ISO/IEC 14496-12 §8.7.8). */
export interface Saiz {
  auxInfoType?: string;
  sizes: (i: number) => number;
  sampleCount: number;
}

/** Parses `saiz`. Raises on malformed input. */
export function parseSaiz(buf: Buffer, box: BoxHeader): Saiz {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "saiz");
  const auxInfoType = fb.flags & 1 ? r.fourcc("aux_info_type") : undefined;
  if (fb.flags & 1) r.u32("aux_info_type_parameter");
  const def = r.u8("default_sample_info_size");
  const sampleCount = r.u32("sample_count");
  if (def !== 0)
    return auxInfoType
      ? { auxInfoType, sampleCount, sizes: () => def }
      : { sampleCount, sizes: () => def };
  const table = r.bytes(sampleCount, "sample_info_size table");
  const sizes = (i: number): number => table[i] ?? 0;
  return auxInfoType ? { auxInfoType, sampleCount, sizes } : { sampleCount, sizes };
}

/** Parses `saio` offsets (ISO/IEC 14496-12 §8.7.9). Raises on malformed input. */
export function parseSaio(
  buf: Buffer,
  box: BoxHeader,
): { auxInfoType?: string; offsets: number[] } {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "saio");
  const auxInfoType = fb.flags & 1 ? r.fourcc("aux_info_type") : undefined;
  if (fb.flags & 1) r.u32("aux_info_type_parameter");
  const n = r.u32("entry_count");
  r.need(n * (fb.version === 0 ? 4 : 8), "offsets");
  const offsets: number[] = [];
  for (let i = 0; i < n; i++) offsets.push(fb.version === 0 ? r.u32("offset") : r.u64n("offset"));
  return auxInfoType ? { auxInfoType, offsets } : { offsets };
}

/**
 * Reads per-sample aux info located by `saiz`/`saio` when no `senc` is present.
 * Offsets are relative to the traf's base data offset (§8.7.9.3); the info must lie
 * in `buf[0, limit)` (the moof, for streaming). `runStarts` gives the first sample
 * index of each trun, for a `saio` with one offset per run.
 */
export function readAuxFromSaio(
  buf: Buffer,
  moofStart: number,
  limit: number,
  base: number,
  saiz: Saiz,
  offsets: number[],
  runStarts: number[],
  sampleCount: number,
  ivSizeOf: (i: number) => number,
): SampleAux[] {
  if (saiz.sampleCount !== sampleCount)
    raise("saiz", `sample_count ${saiz.sampleCount} does not match ${sampleCount} samples in trun`);
  if (offsets.length !== 1 && offsets.length !== runStarts.length)
    raise("saio", `entry_count ${offsets.length} is neither 1 nor the number of truns`);
  const out: SampleAux[] = [];
  let pos = 0;
  let run = 0;
  for (let i = 0; i < sampleCount; i++) {
    if (offsets.length > 1 && runStarts[run] === i)
      pos = moofStart + base + (offsets[run++] as number);
    else if (i === 0) pos = moofStart + base + (offsets[0] as number);
    const size = saiz.sizes(i);
    if (pos < moofStart || pos + size > limit)
      raise("saio", `aux info of sample ${i} at ${pos - moofStart}+${size} lies outside the moof`);
    const r = new ByteReader(buf, pos, pos + size, "saiz");
    const ivSize = ivSizeOf(i);
    const iv = r.bytes(ivSize, `IV of sample ${i}`);
    const subsamples = r.remaining > 0 ? readSubsamples(r) : null;
    if (r.remaining !== 0)
      raise("saiz", `aux info of sample ${i} is ${size} bytes, content is ${size - r.remaining}`);
    out.push({ iv, subsamples });
    pos += size;
  }
  return out;
}
