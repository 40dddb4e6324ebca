// What the test encryptor needs to know of a fragmented MP4, read with the kits'
// own box reader (see mp4-boxes.ts for why it is not the gateway's parser):
// each track's ID, handler, sample format and NAL length size from `moov`
// (ISO/IEC 14496-12 §8.3-8.5, ISO/IEC 14496-15 §5.3.3, §8.3.3), and where each
// sample of a `moof` lies (§8.8.7 tfhd, §8.8.8 trun).
import {
  type Box,
  childrenOf,
  firstOf,
  readBoxes,
  requireBox,
  versionAndFlags,
} from "./mp4-boxes.js";

/** One track of a clear init segment. */
export interface TrackFacts {
  readonly trackId: number;
  /** `hdlr` handler type: `vide`, `soun`, … */
  readonly handler: string;
  /** The first sample entry's format (`avc1`, `hvc1`, `mp4a`, …). */
  readonly format: string;
  /** The first sample entry, in the buffer the init was read from. */
  readonly entry: Box;
  /** Bytes of each NAL unit's length prefix (avcC/hvcC), undefined for non-NAL formats. */
  readonly nalLengthSize: number | undefined;
  /** `trex` default_sample_size. */
  readonly defaultSampleSize: number;
}

/** The tracks of an init segment, for {@link sampleRanges}; opaque to the tests. */
export interface InitFacts {
  readonly tracks: readonly TrackFacts[];
}

/** Bytes between a sample entry's header and its first child box. */
function entryFieldsSize(buf: Buffer, handler: string, entry: Box): number | undefined {
  // VisualSampleEntry: 8 (SampleEntry) + 70; AudioSampleEntry: 8 + 20, plus the
  // QuickTime sound description's version 1 (16 bytes) or version 2 (36 bytes) tail.
  if (handler === "vide") return 78;
  if (handler !== "soun") return undefined;
  const version = buf.readUInt16BE(entry.body + 8);
  return 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
}

function nalLengthSize(buf: Buffer, children: readonly Box[]): number | undefined {
  const avcC = firstOf(children, "avcC");
  if (avcC !== undefined) return ((buf[avcC.body + 4] as number) & 3) + 1;
  const hvcC = firstOf(children, "hvcC");
  if (hvcC !== undefined) return ((buf[hvcC.body + 21] as number) & 3) + 1;
  return undefined;
}

/** The tracks of the `moov` in `buf` (a whole init segment or a file starting with one). */
export function readInit(buf: Buffer): InitFacts {
  const moov = requireBox(readBoxes(buf), "moov");
  const moovKids = childrenOf(buf, moov);
  const mvex = firstOf(moovKids, "mvex");
  const trexSizes = new Map<number, number>();
  for (const trex of mvex === undefined ? [] : childrenOf(buf, mvex)) {
    if (trex.type === "trex")
      trexSizes.set(buf.readUInt32BE(trex.body + 4), buf.readUInt32BE(trex.body + 16));
  }
  const tracks: TrackFacts[] = [];
  for (const trak of moovKids.filter((b) => b.type === "trak")) {
    const trakKids = childrenOf(buf, trak);
    const tkhd = requireBox(trakKids, "tkhd");
    const trackId = buf.readUInt32BE(
      tkhd.body + 4 + (versionAndFlags(buf, tkhd).version === 1 ? 16 : 8),
    );
    const mdia = childrenOf(buf, requireBox(trakKids, "mdia"));
    const handler = buf.toString(
      "latin1",
      requireBox(mdia, "hdlr").body + 8,
      requireBox(mdia, "hdlr").body + 12,
    );
    const stbl = childrenOf(buf, requireBox(childrenOf(buf, requireBox(mdia, "minf")), "stbl"));
    const stsd = requireBox(stbl, "stsd");
    const entry = readBoxes(buf, stsd.body + 8, stsd.end)[0];
    if (entry === undefined) throw new Error(`track ${trackId} has no sample entry`);
    const fields = entryFieldsSize(buf, handler, entry);
    const entryKids = fields === undefined ? [] : readBoxes(buf, entry.body + fields, entry.end);
    tracks.push({
      trackId,
      handler,
      format: entry.type,
      entry,
      nalLengthSize: nalLengthSize(buf, entryKids),
      defaultSampleSize: trexSizes.get(trackId) ?? 0,
    });
  }
  return { tracks };
}

/** One `trun` whose data_offset field sits at `at` in the buffer read. */
export interface TrunOffset {
  readonly at: number;
  readonly value: number;
}

/** One `traf` of a `moof`: its track, its samples (offsets relative to the moof's start). */
export interface TrafFacts {
  readonly box: Box;
  readonly trackId: number;
  readonly samples: readonly { readonly offset: number; readonly size: number }[];
  readonly dataOffsets: readonly TrunOffset[];
}

/**
 * The trafs of `moof` with where their samples lie, relative to the moof's first byte
 * (the data offsets of `default-base-is-moof`, or of the first traf without a base offset).
 */
export function readMoof(buf: Buffer, moof: Box, init: InitFacts): TrafFacts[] {
  const out: TrafFacts[] = [];
  let previousEnd = 0;
  for (const traf of childrenOf(buf, moof).filter((b) => b.type === "traf")) {
    const kids = childrenOf(buf, traf);
    const tfhd = requireBox(kids, "tfhd");
    const { flags } = versionAndFlags(buf, tfhd);
    const trackId = buf.readUInt32BE(tfhd.body + 4);
    let at = tfhd.body + 8;
    let base = out.length === 0 || (flags & 0x20000) !== 0 ? 0 : previousEnd;
    if (flags & 0x1) {
      base = Number(buf.readBigUInt64BE(at)) - moof.start;
      at += 8;
    }
    if (flags & 0x2) at += 4;
    if (flags & 0x8) at += 4;
    const track = init.tracks.find((t) => t.trackId === trackId);
    const defaultSize = flags & 0x10 ? buf.readUInt32BE(at) : (track?.defaultSampleSize ?? 0);
    const samples: { offset: number; size: number }[] = [];
    const dataOffsets: TrunOffset[] = [];
    let next = base;
    for (const trun of kids.filter((b) => b.type === "trun")) {
      const tf = versionAndFlags(buf, trun).flags;
      const count = buf.readUInt32BE(trun.body + 4);
      let p = trun.body + 8;
      if (tf & 0x1) {
        const value = buf.readInt32BE(p);
        dataOffsets.push({ at: p, value });
        next = base + value;
        p += 4;
      }
      if (tf & 0x4) p += 4;
      for (let i = 0; i < count; i++) {
        if (tf & 0x100) p += 4;
        const size = tf & 0x200 ? buf.readUInt32BE(p) : defaultSize;
        if (tf & 0x200) p += 4;
        if (tf & 0x400) p += 4;
        if (tf & 0x800) p += 4;
        samples.push({ offset: next, size });
        next += size;
      }
    }
    previousEnd = next;
    out.push({ box: traf, trackId, samples, dataOffsets });
  }
  return out;
}
