import { randomFillSync } from "node:crypto";
import { writeBox, writeFullBox } from "./mp4-boxes.js";

/** Shape of a synthetic clear CMAF stream. Sample payloads are random bytes. */
export interface SyntheticSpec {
  fragments: number;
  /** Sizes of the video samples of one fragment; each becomes NAL units of at most 16 KiB. */
  videoSampleSizes: number[];
  /** Sizes of the audio samples of one fragment (whole-sample audio); empty for video only. */
  audioSampleSizes: number[];
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
};

function trak(id: number, handler: "vide" | "soun", timescale: number, entry: Buffer): Buffer {
  const tkhd = writeFullBox(
    "tkhd",
    0,
    3,
    Buffer.alloc(8),
    u32(id),
    Buffer.alloc(4 + 4 + 8 + 8 + 36),
    u32(handler === "vide" ? 1280 * 65536 : 0),
    u32(handler === "vide" ? 720 * 65536 : 0),
  );
  const mdhd = writeFullBox(
    "mdhd",
    0,
    0,
    Buffer.alloc(8),
    u32(timescale),
    u32(0),
    Buffer.from([0x15, 0xc7, 0, 0]),
  );
  const hdlr = writeFullBox(
    "hdlr",
    0,
    0,
    u32(0),
    Buffer.from(handler, "latin1"),
    Buffer.alloc(12),
    Buffer.from("synthetic\0"),
  );
  const stsd = writeFullBox("stsd", 0, 0, u32(1), entry);
  const empty = (t: string): Buffer => writeFullBox(t, 0, 0, u32(0));
  const stbl = writeBox(
    "stbl",
    stsd,
    empty("stts"),
    empty("stsc"),
    writeFullBox("stsz", 0, 0, u32(0), u32(0)),
    empty("stco"),
  );
  const minf = writeBox(
    "minf",
    handler === "vide"
      ? writeFullBox("vmhd", 0, 1, Buffer.alloc(8))
      : writeFullBox("smhd", 0, 0, Buffer.alloc(4)),
    writeBox("dinf", writeFullBox("dref", 0, 0, u32(1), writeFullBox("url ", 0, 1))),
    stbl,
  );
  return writeBox("trak", tkhd, writeBox("mdia", mdhd, hdlr, minf));
}

/** A clear init segment: track 1 avc1 1280x720 (High@4.0, 4-byte NAL lengths), track 2 mp4a AAC-LC 48 kHz stereo. */
export function syntheticInit(withAudio = true): Buffer {
  const avcC = writeBox("avcC", Buffer.from([1, 0x64, 0, 0x28, 0xff, 0xe0, 0x00]));
  const visual = Buffer.alloc(78);
  visual.writeUInt16BE(1, 6);
  visual.writeUInt16BE(1280, 24);
  visual.writeUInt16BE(720, 26);
  visual.writeUInt32BE(0x00480000, 28);
  visual.writeUInt32BE(0x00480000, 32);
  visual.writeUInt16BE(1, 40);
  visual.writeUInt16BE(0x18, 74);
  visual.writeInt16BE(-1, 76);
  const avc1 = writeBox("avc1", visual, avcC);
  // ES_Descriptor > DecoderConfigDescriptor(OTI 0x40) > DecSpecificInfo (AAC-LC, 48 kHz, 2 ch).
  const dsi = Buffer.from([0x05, 0x02, 0x11, 0x90]);
  const dcd = Buffer.concat([
    Buffer.from([0x04, 13 + dsi.length, 0x40, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    dsi,
  ]);
  const esd = Buffer.concat([
    Buffer.from([0x03, 3 + dcd.length + 3, 0, 1, 0]),
    dcd,
    Buffer.from([0x06, 0x01, 0x02]),
  ]);
  const audio = Buffer.alloc(28);
  audio.writeUInt16BE(1, 6);
  audio.writeUInt16BE(2, 16);
  audio.writeUInt16BE(16, 18);
  audio.writeUInt32BE(48000 * 65536, 24);
  const mp4a = writeBox("mp4a", audio, writeFullBox("esds", 0, 0, esd));
  const mvhd = writeFullBox(
    "mvhd",
    0,
    0,
    Buffer.alloc(8),
    u32(1000),
    u32(0),
    u32(0x00010000),
    Buffer.from([1, 0]),
    Buffer.alloc(10),
    Buffer.alloc(36),
    Buffer.alloc(24),
    u32(3),
  );
  const trex = (id: number): Buffer =>
    writeFullBox("trex", 0, 0, u32(id), u32(1), u32(0), u32(0), u32(0));
  const traks = [
    trak(1, "vide", 90000, avc1),
    ...(withAudio ? [trak(2, "soun", 48000, mp4a)] : []),
  ];
  const mvex = writeBox("mvex", trex(1), ...(withAudio ? [trex(2)] : []));
  return Buffer.concat([
    writeBox("ftyp", Buffer.from("iso6", "latin1"), u32(0), Buffer.from("iso6cmfc", "latin1")),
    writeBox("moov", mvhd, ...traks, mvex),
  ]);
}

/** One NAL-structured video sample of `size` bytes: 4-byte lengths, IDR/non-IDR slice NAL headers. */
function videoSample(size: number, sync: boolean): Buffer {
  const out = Buffer.allocUnsafe(size);
  randomFillSync(out);
  let pos = 0;
  while (pos < size) {
    const len = Math.min(size - pos - 4, 16384);
    if (len < 1) {
      out.fill(0, pos);
      break;
    }
    out.writeUInt32BE(len, pos);
    out[pos + 4] = sync ? 0x65 : 0x41;
    pos += 4 + len;
  }
  return out;
}

function traf(
  trackId: number,
  decodeTime: number,
  sizes: number[],
  duration: number,
  video: boolean,
): Buffer {
  const tfhd = writeFullBox("tfhd", 0, 0x20000 | 0x8, u32(trackId), u32(duration));
  const tfdt = writeFullBox("tfdt", 1, 0, Buffer.alloc(8));
  tfdt.writeBigUInt64BE(BigInt(decodeTime), 12);
  const entries = sizes.map((s, i) =>
    Buffer.concat([u32(s), u32(video && i > 0 ? 0x01010000 : 0x02000000)]),
  );
  const trun = writeFullBox("trun", 0, 0x1 | 0x200 | 0x400, u32(sizes.length), u32(0), ...entries);
  return writeBox("traf", tfhd, tfdt, trun);
}

/**
 * Clear `moof`+`mdat` fragments per `spec` (default-base-is-moof, data offsets set),
 * as a single buffer to append to {@link syntheticInit}.
 */
export function syntheticFragments(spec: SyntheticSpec): Buffer {
  const out: Buffer[] = [];
  for (let f = 0; f < spec.fragments; f++) {
    const vSamples = spec.videoSampleSizes.map((s, i) => videoSample(s, i === 0));
    const aSamples = spec.audioSampleSizes.map((s) => randomFillSync(Buffer.allocUnsafe(s)));
    const trafs = [
      traf(1, f * spec.videoSampleSizes.length * 3600, spec.videoSampleSizes, 3600, true),
    ];
    if (aSamples.length > 0)
      trafs.push(
        traf(2, f * spec.audioSampleSizes.length * 1024, spec.audioSampleSizes, 1024, false),
      );
    const moof = writeBox("moof", writeFullBox("mfhd", 0, 0, u32(f + 1)), ...trafs);
    const vBytes = vSamples.reduce((n, b) => n + b.length, 0);
    // Patch the trun data offsets: video data right after the mdat header, audio after the video.
    const firstTrun = moof.indexOf("trun", 0, "latin1");
    moof.writeInt32BE(moof.length + 8, firstTrun + 12);
    if (aSamples.length > 0)
      moof.writeInt32BE(
        moof.length + 8 + vBytes,
        moof.indexOf("trun", firstTrun + 4, "latin1") + 12,
      );
    out.push(moof, writeBox("mdat", ...vSamples, ...aSamples));
  }
  return Buffer.concat(out);
}
