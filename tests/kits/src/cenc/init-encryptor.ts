import { clearKeyPssh } from "./clearkey.js";
import { type Box, childrenOf, readBoxes, writeBox, writeFullBox } from "./mp4-boxes.js";
import { type InitFacts, readInit } from "./mp4-tracks.js";
import type { CencScheme } from "./reference-cipher.js";

/** Protection applied to one track by the test encryptor. */
export interface TrackEncryption {
  kid: Buffer;
  key: Buffer;
  /** 0 selects `constantIv`. */
  ivSize: 0 | 8 | 16;
  constantIv?: Buffer;
  crypt: number;
  skip: number;
  /** Subsample-encrypt NAL video (true for video tracks in practice). */
  subsamples: boolean;
}

/** Test encryptor configuration. `tracks` lists which track IDs to protect and how. */
export interface EncryptorConfig {
  scheme: CencScheme;
  tracks: Map<number, TrackEncryption>;
  /** Also write `pssh` into each moof (exercises its removal). */
  psshInMoof?: boolean;
}

/** `tenc` (ISO/IEC 23001-7 §8.2): version 1 carries the pattern for cens/cbcs. */
export function tencBox(scheme: CencScheme, t: TrackEncryption): Buffer {
  const pattern = scheme === "cbcs" || scheme === "cens";
  const head = Buffer.from([0, pattern ? (t.crypt << 4) | t.skip : 0, 1, t.ivSize]);
  const tail =
    t.ivSize === 0 && t.constantIv
      ? Buffer.concat([Buffer.from([t.constantIv.length]), t.constantIv])
      : Buffer.alloc(0);
  return writeFullBox("tenc", pattern ? 1 : 0, 0, head, t.kid, tail);
}

/** `sinf` with `frma`, `schm` (version 1.0) and `schi/tenc`. */
export function sinfBox(scheme: CencScheme, originalFormat: string, t: TrackEncryption): Buffer {
  const schm = Buffer.alloc(8);
  schm.write(scheme, 0, "latin1");
  schm.writeUInt32BE(0x00010000, 4);
  return writeBox(
    "sinf",
    writeBox("frma", Buffer.from(originalFormat, "latin1")),
    writeFullBox("schm", 0, 0, schm),
    writeBox("schi", tencBox(scheme, t)),
  );
}

/**
 * Protects a clear init segment: sample entries of the configured tracks become
 * `encv`/`enca` with a `sinf` after their children, and a ClearKey `pssh` listing all
 * KIDs is appended to `moov`. `info` describes the clear tracks, for {@link encryptFile}
 * of the segments that follow. Throws on malformed input (test-only code).
 */
export function encryptInit(buf: Buffer, cfg: EncryptorConfig): { init: Buffer; info: InitFacts } {
  const info = readInit(buf);
  const kids = [
    ...new Map([...cfg.tracks.values()].map((t) => [t.kid.toString("hex"), t.kid])).values(),
  ];
  const parts = readBoxes(buf).map((top) => {
    if (top.type !== "moov") return buf.subarray(top.start, top.end);
    const children = childrenOf(buf, top).map((trak) => {
      const track = info.tracks.find((x) => x.entry.start > trak.start && x.entry.end <= trak.end);
      const t = track === undefined ? undefined : cfg.tracks.get(track.trackId);
      if (trak.type !== "trak" || track === undefined || t === undefined)
        return buf.subarray(trak.start, trak.end);
      return rebuildPath(buf, trak, ["mdia", "minf", "stbl", "stsd"], (stsd) => {
        const [first, ...rest] = readBoxes(buf, stsd.body + 8, stsd.end);
        if (first === undefined) throw new Error("stsd without a sample entry");
        const entry = writeBox(
          track.handler === "vide" ? "encv" : "enca",
          buf.subarray(first.body, first.end),
          sinfBox(cfg.scheme, first.type, t),
        );
        const others = rest.map((b) => buf.subarray(b.start, b.end));
        return writeBox("stsd", buf.subarray(stsd.body, stsd.body + 8), entry, ...others);
      });
    });
    return writeBox("moov", ...children, clearKeyPssh(kids));
  });
  return { init: Buffer.concat(parts), info };
}

/** `box` rebuilt with the descendant at `path` (plain containers down to it) replaced by `leaf`. */
function rebuildPath(
  buf: Buffer,
  box: Box,
  path: readonly string[],
  leaf: (b: Box) => Buffer,
): Buffer {
  const [next, ...rest] = path;
  if (next === undefined) return leaf(box);
  const parts = childrenOf(buf, box).map((child) =>
    child.type === next
      ? rebuildPath(buf, child, rest, leaf)
      : buf.subarray(child.start, child.end),
  );
  return writeBox(box.type, ...parts);
}
