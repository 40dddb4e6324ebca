import type { BoxHeader } from "../mp4/box-reader.js";
import { type BoxAction, rebuildBox } from "../mp4/box-writer.js";
import { type Moof, parseMoofOrRaise } from "../mp4/fragment-parser.js";
import { raise } from "../mp4/parse-result.js";
import { isSeigGroupBox } from "./init-decrypt.js";

/** PIFF 1.1 SampleEncryptionBox carried as a `uuid` box; removed like `senc`. */
const PIFF_SENC_UUID = "a2394f525a9b4f14a2446c427c648df4";
const TRAF_CRYPTO_BOXES = new Set(["senc", "saiz", "saio"]);

/** The rebuilt moof and how many bytes it lost. */
export interface RewrittenMoof {
  bytes: Buffer;
  shrink: number;
}

/**
 * Removes the encryption boxes from a moof (`pssh`; in each traf `senc`, `saiz`,
 * `saio`, `seig` `sbgp`/`sgpd`), recomputes sizes, then moves every data
 * reference back by the bytes removed: trun data_offset when it is relative to the
 * moof start (ISO/IEC 14496-12 §8.8.7.1), and an absolute tfhd base_data_offset by
 * `removedBefore` (bytes already removed earlier in the stream) plus this moof's shrink.
 * Raises on malformed input.
 */
export function rewriteMoof(buf: Buffer, moof: Moof, removedBefore: number): RewrittenMoof {
  const visit = (box: BoxHeader, path: readonly string[]): BoxAction => {
    if (path.length === 1) {
      if (box.type === "pssh") return { kind: "remove" };
      return box.type === "traf" ? { kind: "descend" } : { kind: "keep" };
    }
    if (TRAF_CRYPTO_BOXES.has(box.type)) return { kind: "remove" };
    if (box.type === "uuid" && box.userType === PIFF_SENC_UUID) return { kind: "remove" };
    if (isSeigGroupBox(buf, box)) return { kind: "remove" };
    return { kind: "keep" };
  };
  const rebuilt = rebuildBox(buf, moof.box, visit);
  if (!rebuilt.ok) raise(rebuilt.error.box, rebuilt.error.message);
  const out = rebuilt.value;
  const shrink = moof.box.end - moof.box.start - out.length;
  if (shrink === 0) return { bytes: out, shrink };
  const again = parseMoofOrRaise(out, {
    type: "moof",
    start: 0,
    headerSize: out.length > 0xffffffff ? 16 : 8,
    end: out.length,
  });
  again.trafs.forEach((traf, i) => {
    const t = traf.tfhd;
    if (t.baseDataOffset !== undefined && t.baseDataOffsetPos !== undefined) {
      const moved = t.baseDataOffset - removedBefore - shrink;
      if (moved < 0) raise("tfhd", "base_data_offset would become negative");
      out.writeBigUInt64BE(BigInt(moved), t.baseDataOffsetPos);
      return;
    }
    // Later trafs without default-base-is-moof are relative to the previous traf's data, which did not move relative to them.
    if (!t.defaultBaseIsMoof && i > 0) return;
    for (const trun of traf.truns) {
      if (trun.dataOffset === undefined || trun.dataOffsetPos === undefined) continue;
      const moved = trun.dataOffset - shrink;
      if (moved < -0x80000000) raise("trun", "data_offset underflow");
      out.writeInt32BE(moved, trun.dataOffsetPos);
    }
  });
  return { bytes: out, shrink };
}
