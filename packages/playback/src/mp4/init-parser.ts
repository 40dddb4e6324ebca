import {
  type BoxHeader,
  boxAt,
  boxesIn,
  filterBoxes,
  findBox,
  fullBoxAt,
  payloadStart,
} from "./box-reader.js";
import { ByteReader } from "./byte-reader.js";
import { guard, type Result, raise } from "./parse-result.js";
import { parseSampleEntry, type SampleEntryInfo } from "./sample-entry.js";

/** `trex` defaults applied to fragments of a track (ISO/IEC 14496-12 §8.8.3). */
export interface TrexDefaults {
  trackId: number;
  sampleDescriptionIndex: number;
  sampleDuration: number;
  sampleSize: number;
  sampleFlags: number;
}

/** One `trak` of an init segment. */
export interface TrackInfo {
  trak: BoxHeader;
  trackId: number;
  /** `hdlr` handler_type: `vide`, `soun`, `subt`, `text`, ... */
  handler: string;
  /** `mdhd` timescale (ticks per second). */
  timescale: number;
  /** ISO 639-2/T code from `mdhd`, e.g. `und`, `eng`. */
  language: string;
  /** Presentation size from `tkhd` (16.16 fixed point, integer part). */
  width: number;
  height: number;
  stbl: BoxHeader;
  stblChildren: BoxHeader[];
  sampleEntries: SampleEntryInfo[];
  trex?: TrexDefaults;
}

/** A parsed init segment (`ftyp` + `moov`). */
export interface InitInfo {
  moov: BoxHeader;
  /** `mvhd` timescale. */
  movieTimescale: number;
  tracks: TrackInfo[];
  /** `pssh` boxes directly under `moov`. */
  pssh: BoxHeader[];
  /** Top-level boxes of the buffer. */
  topLevel: BoxHeader[];
}

/** Parses an init segment (or any file with a `moov`). */
export function parseInit(buf: Buffer): Result<InitInfo> {
  return guard("moov", () => parseInitOrRaise(buf));
}

/** As {@link parseInit} but raising; for composition inside other guarded parsers. */
export function parseInitOrRaise(buf: Buffer): InitInfo {
  const topLevel = boxesIn(buf, 0, buf.length, "file");
  const moov = findBox(topLevel, "moov");
  if (!moov) raise("moov", "no moov box");
  const kids = boxesIn(buf, payloadStart(moov), moov.end, "moov");
  const mvhd = findBox(kids, "mvhd");
  if (!mvhd) raise("mvhd", "missing mvhd");
  const mv = fullBoxAt(buf, mvhd);
  const mr = new ByteReader(buf, mv.bodyStart, mvhd.end, "mvhd");
  mr.skip(mv.version === 1 ? 16 : 8, "creation/modification time");
  const movieTimescale = mr.u32("timescale");
  const trexList = parseMvex(buf, findBox(kids, "mvex"));
  const tracks = filterBoxes(kids, "trak").map((trak) => parseTrak(buf, trak, trexList));
  return { moov, movieTimescale, tracks, pssh: filterBoxes(kids, "pssh"), topLevel };
}

function parseMvex(buf: Buffer, mvex: BoxHeader | undefined): TrexDefaults[] {
  if (!mvex) return [];
  return filterBoxes(boxesIn(buf, payloadStart(mvex), mvex.end, "mvex"), "trex").map((trex) => {
    const fb = fullBoxAt(buf, trex);
    const r = new ByteReader(buf, fb.bodyStart, trex.end, "trex");
    return {
      trackId: r.u32("track_ID"),
      sampleDescriptionIndex: r.u32("default_sample_description_index"),
      sampleDuration: r.u32("default_sample_duration"),
      sampleSize: r.u32("default_sample_size"),
      sampleFlags: r.u32("default_sample_flags"),
    };
  });
}

function child(
  buf: Buffer,
  parent: BoxHeader,
  type: string,
): { box: BoxHeader; kids: BoxHeader[] } {
  const list = boxesIn(buf, payloadStart(parent), parent.end, parent.type);
  const box = findBox(list, type);
  if (!box) raise(parent.type, `missing ${type}`);
  return { box, kids: list };
}

function parseTrak(buf: Buffer, trak: BoxHeader, trexList: TrexDefaults[]): TrackInfo {
  const { box: tkhd, kids: trakKids } = child(buf, trak, "tkhd");
  const th = fullBoxAt(buf, tkhd);
  const tr = new ByteReader(buf, th.bodyStart, tkhd.end, "tkhd");
  tr.skip(th.version === 1 ? 16 : 8, "creation/modification time");
  const trackId = tr.u32("track_ID");
  // reserved(4) + duration(4|8) + reserved(8) + layer/alternate_group/volume/reserved(8) + matrix(36)
  tr.skip(4 + (th.version === 1 ? 8 : 4) + 8 + 8 + 36, "tkhd fields");
  const width = tr.u32("width") >>> 16;
  const height = tr.u32("height") >>> 16;

  const mdia = findBox(trakKids, "mdia");
  if (!mdia) raise("trak", "missing mdia");
  const { box: mdhd, kids: mdiaKids } = child(buf, mdia, "mdhd");
  const md = fullBoxAt(buf, mdhd);
  const mr = new ByteReader(buf, md.bodyStart, mdhd.end, "mdhd");
  mr.skip(md.version === 1 ? 16 : 8, "creation/modification time");
  const timescale = mr.u32("timescale");
  mr.skip(md.version === 1 ? 8 : 4, "duration");
  const lang = mr.u16("language");
  // §8.4.2.3: three 5-bit letters, each offset by 0x60.
  const language = String.fromCharCode(
    ((lang >> 10) & 31) + 0x60,
    ((lang >> 5) & 31) + 0x60,
    (lang & 31) + 0x60,
  );

  const hdlr = findBox(mdiaKids, "hdlr");
  if (!hdlr) raise("mdia", "missing hdlr");
  const hr = new ByteReader(buf, fullBoxAt(buf, hdlr).bodyStart, hdlr.end, "hdlr");
  hr.skip(4, "pre_defined");
  const handler = hr.fourcc("handler_type");

  const minf = findBox(mdiaKids, "minf");
  if (!minf) raise("mdia", "missing minf");
  const { box: stbl } = child(buf, minf, "stbl");
  const { box: stsd, kids: stblChildren } = child(buf, stbl, "stsd");
  const sd = fullBoxAt(buf, stsd);
  const count = new ByteReader(buf, sd.bodyStart, stsd.end, "stsd").u32("entry_count");
  const sampleEntries: SampleEntryInfo[] = [];
  let pos = sd.bodyStart + 4;
  for (let i = 0; i < count; i++) {
    if (pos >= stsd.end) raise("stsd", `entry_count ${count} but only ${i} entries present`);
    const entry = boxAt(buf, pos, stsd.end, "stsd");
    sampleEntries.push(parseSampleEntry(buf, entry));
    pos = entry.end;
  }
  const trex = trexList.find((t) => t.trackId === trackId);
  const info: TrackInfo = {
    trak,
    trackId,
    handler,
    timescale,
    language,
    width,
    height,
    stbl,
    stblChildren,
    sampleEntries,
  };
  if (trex) info.trex = trex;
  return info;
}
