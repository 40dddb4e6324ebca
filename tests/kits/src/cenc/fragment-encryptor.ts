import { randomBytes } from "node:crypto";
import { clearKeyPssh } from "./clearkey.js";
import { type EncryptorConfig, encryptInit, type TrackEncryption } from "./init-encryptor.js";
import { type Box, childrenOf, firstOf, readBoxes, writeBox, writeFullBox } from "./mp4-boxes.js";
import { type InitFacts, readMoof } from "./mp4-tracks.js";
import { nalSubsamples } from "./nal-subsamples.js";
import { encryptSampleReference } from "./reference-cipher.js";

/**
 * Encrypts a clear fragmented MP4 (init and/or `moof`+`mdat` pairs, as ffmpeg writes
 * with `+frag_keyframe+empty_moov+default_base_moof+cmaf`). Each protected traf gains
 * `saiz`, `saio` and `senc` (saio pointing at senc's first entry, relative to the moof),
 * and trun data offsets grow by the moof's growth. Pass `info` when `buf` holds no moov.
 * Throws on malformed input (test-only code).
 */
export function encryptFile(buf: Buffer, cfg: EncryptorConfig, info?: InitFacts): Buffer {
  let init = info;
  const out: Buffer[] = [];
  const top = readBoxes(buf);
  for (let i = 0; i < top.length; i++) {
    const box = top[i] as Box;
    if (box.type === "moov") {
      const e = encryptInit(buf.subarray(box.start, box.end), cfg);
      init = e.info;
      out.push(e.init);
    } else if (box.type === "moof") {
      const mdat = top[i + 1];
      if (mdat?.type !== "mdat") throw new Error("moof without an adjacent mdat");
      if (!init) throw new Error("moof before moov: pass the init's info");
      out.push(...encryptFragment(buf, box, mdat, init, cfg));
      i++;
    } else {
      out.push(buf.subarray(box.start, box.end));
    }
  }
  return Buffer.concat(out);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}

function encryptFragment(
  buf: Buffer,
  moofBox: Box,
  mdatBox: Box,
  init: InitFacts,
  cfg: EncryptorConfig,
): Buffer[] {
  const trafs = readMoof(buf, moofBox, init);
  // Work on a copy of moof..mdat so offsets relative to the moof stay valid.
  const region = Buffer.from(buf.subarray(moofBox.start, mdatBox.end));
  const trafBytes: Buffer[] = [];
  for (const traf of trafs) {
    const original = buf.subarray(traf.box.start, traf.box.end);
    const t = cfg.tracks.get(traf.trackId);
    const track = init.tracks.find((x) => x.trackId === traf.trackId);
    const samples = traf.samples;
    if (!t || !track) {
      trafBytes.push(original);
      continue;
    }
    const format = track.format;
    const hevc = format === "hvc1" || format === "hev1";
    const aux: Buffer[] = [];
    let anySub = false;
    for (const s of samples) {
      const iv = t.ivSize === 0 ? (t.constantIv as Buffer) : randomBytes(t.ivSize);
      let sub: number[] | null = null;
      if (t.subsamples && track.nalLengthSize) {
        sub = nalSubsamples(region.subarray(s.offset, s.offset + s.size), {
          nalLengthSize: track.nalLengthSize,
          nalHeaderSize: hevc ? 2 : 1,
          codec: hevc ? "hevc" : "avc",
          clearLeadIn: cfg.scheme === "cbcs" ? 32 : 0,
          blockAlign: cfg.scheme !== "cbcs",
        }) ?? [0, s.size];
      }
      anySub ||= sub !== null;
      encryptSampleReference(region, s.offset, s.size, {
        scheme: cfg.scheme,
        key: t.key,
        iv,
        subsamples: sub,
        crypt: t.crypt,
        skip: t.skip,
      });
      aux.push(auxEntry(t, iv, sub));
    }
    const sencFlags = anySub ? 2 : 0;
    const entries = aux;
    const senc = writeFullBox("senc", 0, sencFlags, u32(samples.length), ...entries);
    const sizes = entries.map((e) => e.length);
    const kids = childrenOf(buf, traf.box).map((b) => buf.subarray(b.start, b.end));
    // Aux info of zero bytes (constant IV, whole samples) needs no saiz/saio: there is nothing to locate.
    if (sizes.every((x) => x === 0)) {
      trafBytes.push(writeBox("traf", ...kids, senc));
      continue;
    }
    const same = sizes.every((x) => x === sizes[0]);
    const saiz = same
      ? writeFullBox("saiz", 0, 0, Buffer.from([sizes[0] ?? 0]), u32(samples.length))
      : writeFullBox("saiz", 0, 0, Buffer.from([0]), u32(samples.length), Buffer.from(sizes));
    const saio = writeFullBox("saio", 0, 0, u32(1), u32(0));
    trafBytes.push(writeBox("traf", ...kids, saiz, saio, senc));
  }
  const moofKids = childrenOf(buf, moofBox)
    .filter((b) => b.type !== "traf")
    .map((b) => buf.subarray(b.start, b.end));
  const pssh = cfg.psshInMoof ? [clearKeyPssh([...cfg.tracks.values()].map((t) => t.kid))] : [];
  const newMoof = writeBox("moof", ...moofKids, ...pssh, ...trafBytes);
  patchOffsets(newMoof, newMoof.length - (moofBox.end - moofBox.start), init);
  return [newMoof, region.subarray(mdatBox.start - moofBox.start)];
}

function auxEntry(t: TrackEncryption, iv: Buffer, sub: number[] | null): Buffer {
  const ivPart = t.ivSize === 0 ? Buffer.alloc(0) : iv;
  if (!sub) return ivPart;
  const b = Buffer.alloc(2 + (sub.length / 2) * 6);
  b.writeUInt16BE(sub.length / 2, 0);
  for (let i = 0; i < sub.length; i += 2) {
    b.writeUInt16BE(sub[i] as number, 2 + (i / 2) * 6);
    b.writeUInt32BE(sub[i + 1] as number, 4 + (i / 2) * 6);
  }
  return Buffer.concat([ivPart, b]);
}

/** Moves trun data offsets by the moof growth and points each saio at its senc entries. */
function patchOffsets(moof: Buffer, growth: number, init: InitFacts): void {
  const whole: Box = { type: "moof", start: 0, body: 8, end: moof.length };
  for (const traf of readMoof(moof, whole, init)) {
    for (const trun of traf.dataOffsets) moof.writeInt32BE(trun.value + growth, trun.at);
    const kids = childrenOf(moof, traf.box);
    const senc = firstOf(kids, "senc");
    const saio = firstOf(kids, "saio");
    if (!senc || !saio) continue;
    // senc: header, version/flags, sample_count, then the first entry (ISO/IEC 23001-7 §7.2);
    // saio: header, version/flags, entry_count, then the offset (ISO/IEC 14496-12 §8.7.9).
    moof.writeUInt32BE(senc.body + 8, saio.body + 8);
  }
}
