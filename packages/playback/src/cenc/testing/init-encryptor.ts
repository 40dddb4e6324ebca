import type { BoxHeader } from "../../mp4/box-reader.js";
import { type BoxAction, rebuildBox, writeBox, writeFullBox } from "../../mp4/box-writer.js";
import { type InitInfo, parseInitOrRaise } from "../../mp4/init-parser.js";
import type { CencScheme } from "../sample-decrypt.js";
import { clearKeyPssh } from "./clearkey.js";

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
 * `encv`/`enca` with a `sinf`, and a ClearKey `pssh` listing all KIDs is appended to `moov`.
 * Throws on malformed input (test-only code).
 */
export function encryptInit(buf: Buffer, cfg: EncryptorConfig): { init: Buffer; info: InitInfo } {
  const info = parseInitOrRaise(buf);
  const lastChild = new Map<number, Buffer>();
  const renames = new Map<number, string>();
  for (const track of info.tracks) {
    const t = cfg.tracks.get(track.trackId);
    const entry = track.sampleEntries[0];
    if (!t || !entry) continue;
    const last = entry.children[entry.children.length - 1];
    if (!last) throw new Error(`sample entry ${entry.type} has no child boxes`);
    renames.set(entry.box.start, track.handler === "vide" ? "encv" : "enca");
    lastChild.set(last.start, sinfBox(cfg.scheme, entry.type, t));
  }
  const path = ["moov", "trak", "mdia", "minf", "stbl", "stsd"];
  const visit = (box: BoxHeader, at: readonly string[]): BoxAction => {
    if (at.length < path.length && at.join("/") === path.slice(0, at.length).join("/")) {
      return box.type === path[at.length] ? { kind: "descend" } : { kind: "keep" };
    }
    if (at.length === path.length) {
      const rename = renames.get(box.start);
      return rename ? { kind: "descend", rename } : { kind: "keep" };
    }
    const sinf = lastChild.get(box.start);
    return sinf
      ? { kind: "replace", bytes: Buffer.concat([buf.subarray(box.start, box.end), sinf]) }
      : { kind: "keep" };
  };
  const kids = [
    ...new Map([...cfg.tracks.values()].map((t) => [t.kid.toString("hex"), t.kid])).values(),
  ];
  const parts = info.topLevel.map((top) => {
    if (top.type !== "moov") return buf.subarray(top.start, top.end);
    const rebuilt = rebuildBox(buf, top, visit);
    if (!rebuilt.ok) throw new Error(rebuilt.error.message);
    return writeBox("moov", rebuilt.value.subarray(8), clearKeyPssh(kids));
  });
  const init = Buffer.concat(parts);
  return { init, info: parseInitOrRaise(init) };
}
