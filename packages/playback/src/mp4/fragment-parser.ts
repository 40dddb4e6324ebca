import {
  type BoxHeader,
  boxesIn,
  filterBoxes,
  findBox,
  fullBoxAt,
  payloadStart,
} from "./box-reader.js";
import { ByteReader } from "./byte-reader.js";
import type { TrexDefaults } from "./init-parser.js";
import { guard, type Result, raise } from "./parse-result.js";

/** `tfhd` fields (ISO/IEC 14496-12 §8.8.7). Absent optional fields are `undefined`. */
export interface Tfhd {
  box: BoxHeader;
  flags: number;
  trackId: number;
  baseDataOffset?: number;
  /** Absolute position of the 64-bit base_data_offset field, for rewriting. */
  baseDataOffsetPos?: number;
  sampleDescriptionIndex?: number;
  defaultSampleDuration?: number;
  defaultSampleSize?: number;
  defaultSampleFlags?: number;
  durationIsEmpty: boolean;
  defaultBaseIsMoof: boolean;
}

/** One sample of a track run with defaults already applied. */
export interface FragmentSample {
  size: number;
  duration: number;
  flags: number;
  compositionOffset: number;
}

/** A `trun` (§8.8.8). */
export interface Trun {
  box: BoxHeader;
  version: number;
  flags: number;
  dataOffset?: number;
  /** Absolute position of the signed 32-bit data_offset field, for rewriting. */
  dataOffsetPos?: number;
  samples: FragmentSample[];
}

/** A `traf` with its parsed headers and the raw list of children. */
export interface Traf {
  box: BoxHeader;
  children: BoxHeader[];
  tfhd: Tfhd;
  /** `tfdt` baseMediaDecodeTime (§8.8.12). */
  baseMediaDecodeTime?: bigint;
  truns: Trun[];
}

/** A parsed `moof`. */
export interface Moof {
  box: BoxHeader;
  children: BoxHeader[];
  sequenceNumber: number;
  trafs: Traf[];
}

/** §8.8.3.1: sample_is_non_sync_sample is bit 16 of the sample flags. */
export function isSyncSampleFlags(flags: number): boolean {
  return (flags & 0x00010000) === 0;
}

/**
 * Parses the `moof` at `moof` inside `buf`, resolving sample defaults from
 * `tfhd` then the matching `trex` (when the init segment is known).
 */
export function parseMoof(
  buf: Buffer,
  moof: BoxHeader,
  trex: readonly TrexDefaults[] = [],
): Result<Moof> {
  return guard("moof", () => parseMoofOrRaise(buf, moof, trex));
}

/** As {@link parseMoof} but raising; for use inside guarded parsers. */
export function parseMoofOrRaise(
  buf: Buffer,
  moof: BoxHeader,
  trex: readonly TrexDefaults[] = [],
): Moof {
  if (moof.type !== "moof") raise(moof.type, "not a moof");
  const children = boxesIn(buf, payloadStart(moof), moof.end, "moof");
  const mfhd = findBox(children, "mfhd");
  if (!mfhd) raise("moof", "missing mfhd");
  const sequenceNumber = new ByteReader(buf, fullBoxAt(buf, mfhd).bodyStart, mfhd.end, "mfhd").u32(
    "sequence_number",
  );
  const trafs = filterBoxes(children, "traf").map((traf) => parseTraf(buf, traf, trex));
  return { box: moof, children, sequenceNumber, trafs };
}

function parseTfhd(buf: Buffer, box: BoxHeader): Tfhd {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "tfhd");
  const f = fb.flags;
  const t: Tfhd = {
    box,
    flags: f,
    trackId: r.u32("track_ID"),
    durationIsEmpty: (f & 0x10000) !== 0,
    defaultBaseIsMoof: (f & 0x20000) !== 0,
  };
  if (f & 0x1) {
    t.baseDataOffsetPos = r.pos;
    t.baseDataOffset = r.u64n("base_data_offset");
  }
  if (f & 0x2) t.sampleDescriptionIndex = r.u32("sample_description_index");
  if (f & 0x8) t.defaultSampleDuration = r.u32("default_sample_duration");
  if (f & 0x10) t.defaultSampleSize = r.u32("default_sample_size");
  if (f & 0x20) t.defaultSampleFlags = r.u32("default_sample_flags");
  return t;
}

function parseTraf(buf: Buffer, traf: BoxHeader, trexList: readonly TrexDefaults[]): Traf {
  const children = boxesIn(buf, payloadStart(traf), traf.end, "traf");
  const tfhdBox = findBox(children, "tfhd");
  if (!tfhdBox) raise("traf", "missing tfhd");
  const tfhd = parseTfhd(buf, tfhdBox);
  const trex = trexList.find((t) => t.trackId === tfhd.trackId);
  const out: Traf = { box: traf, children, tfhd, truns: [] };
  const tfdt = findBox(children, "tfdt");
  if (tfdt) {
    const fb = fullBoxAt(buf, tfdt);
    const r = new ByteReader(buf, fb.bodyStart, tfdt.end, "tfdt");
    out.baseMediaDecodeTime =
      fb.version === 1 ? r.u64("baseMediaDecodeTime") : BigInt(r.u32("baseMediaDecodeTime"));
  }
  const defaults = {
    duration: tfhd.defaultSampleDuration ?? trex?.sampleDuration,
    size: tfhd.defaultSampleSize ?? trex?.sampleSize,
    flags: tfhd.defaultSampleFlags ?? trex?.sampleFlags ?? 0,
  };
  for (const trunBox of filterBoxes(children, "trun"))
    out.truns.push(parseTrun(buf, trunBox, defaults));
  return out;
}

function parseTrun(
  buf: Buffer,
  box: BoxHeader,
  d: { duration: number | undefined; size: number | undefined; flags: number },
): Trun {
  const fb = fullBoxAt(buf, box);
  const r = new ByteReader(buf, fb.bodyStart, box.end, "trun");
  const f = fb.flags;
  const count = r.u32("sample_count");
  const trun: Trun = { box, version: fb.version, flags: f, samples: [] };
  if (f & 0x1) {
    trun.dataOffsetPos = r.pos;
    trun.dataOffset = r.i32("data_offset");
  }
  const firstFlags = f & 0x4 ? r.u32("first_sample_flags") : undefined;
  const perSample =
    (f & 0x100 ? 4 : 0) + (f & 0x200 ? 4 : 0) + (f & 0x400 ? 4 : 0) + (f & 0x800 ? 4 : 0);
  // Validate the count against the box before allocating anything for it.
  if (count * perSample > r.remaining)
    raise("trun", `sample_count ${count} needs ${count * perSample} bytes, box has ${r.remaining}`);
  if (perSample === 0 && count > 1 << 24)
    raise("trun", `implausible sample_count ${count} without per-sample fields`);
  if (!(f & 0x200) && d.size === undefined)
    raise("trun", "sample size absent from trun, tfhd and trex");
  if (!(f & 0x100) && d.duration === undefined)
    raise("trun", "sample duration absent from trun, tfhd and trex");
  for (let i = 0; i < count; i++) {
    const duration = f & 0x100 ? r.u32("sample_duration") : (d.duration as number);
    const size = f & 0x200 ? r.u32("sample_size") : (d.size as number);
    let flags = f & 0x400 ? r.u32("sample_flags") : d.flags;
    if (i === 0 && firstFlags !== undefined) flags = firstFlags;
    // §8.8.8.2: version 1 makes the composition offset signed.
    const compositionOffset = f & 0x800 ? (fb.version === 0 ? r.u32("cto") : r.i32("cto")) : 0;
    trun.samples.push({ size, duration, flags, compositionOffset });
  }
  return trun;
}
