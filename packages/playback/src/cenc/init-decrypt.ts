import { type BoxHeader, payloadStart } from "../mp4/box-reader.js";
import { type BoxAction, rebuildBox } from "../mp4/box-writer.js";
import { parseInit } from "../mp4/init-parser.js";
import { guard, ok, type Result } from "../mp4/parse-result.js";
import { parseSeigSbgp, parseSeigSgpd } from "./protection-boxes.js";
import { contextFromInit, type DecryptContext } from "./track-protection.js";

/** A clear init segment and the context needed to decrypt its fragments. */
export interface DecryptedInit {
  init: Buffer;
  context: DecryptContext;
}

/** Container path → the child type to descend into on the way to `stsd`. */
const DESCEND = new Map([
  ["moov", "trak"],
  ["moov/trak", "mdia"],
  ["moov/trak/mdia", "minf"],
  ["moov/trak/mdia/minf", "stbl"],
  ["moov/trak/mdia/minf/stbl", "stsd"],
]);

/**
 * Turns a protected init segment into a clear one (ISO/IEC 23001-7 §8.12 / 14496-12 §8.12):
 * each `encv`/`enca` is renamed back to its `frma` format with `sinf` removed,
 * `pssh` boxes are dropped from `moov`, and `seig` groups in `stbl` are dropped.
 * Clear tracks are copied unchanged.
 *
 * @example
 * const r = decryptInit(encryptedInit);
 * if (!r.ok) return r;
 * res.end(r.value.init); // then decryptSegment(seg, r.value.context, keys)
 */
export function decryptInit(buf: Buffer): Result<DecryptedInit> {
  const parsed = parseInit(buf);
  if (!parsed.ok) return parsed;
  const ctx = contextFromInit(buf, parsed.value);
  if (!ctx.ok) return ctx;
  const renames = new Map<number, string>();
  for (const t of parsed.value.tracks)
    for (const e of t.sampleEntries)
      if (e.protection) renames.set(e.box.start, e.protection.originalFormat);
  const visit = (box: BoxHeader, path: readonly string[]): BoxAction => {
    const descendInto = DESCEND.get(path.join("/"));
    if (descendInto !== undefined) {
      if (box.type === "pssh" && path.length === 1) return { kind: "remove" };
      if (path.length === 5 && isSeigGroupBox(buf, box)) return { kind: "remove" };
      return box.type === descendInto ? { kind: "descend" } : { kind: "keep" };
    }
    if (path.length === 6 && path[5] === "stsd") {
      const rename = renames.get(box.start);
      return rename ? { kind: "descend", rename } : { kind: "keep" };
    }
    // Inside a protected sample entry: drop the protection scheme info.
    if (path.length === 7 && box.type === "sinf") return { kind: "remove" };
    return { kind: "keep" };
  };
  const parts: Buffer[] = [];
  for (const top of parsed.value.topLevel) {
    if (top.type !== "moov") {
      parts.push(buf.subarray(top.start, top.end));
      continue;
    }
    const rebuilt = rebuildBox(buf, top, visit);
    if (!rebuilt.ok) return rebuilt;
    parts.push(rebuilt.value);
  }
  return ok({ init: Buffer.concat(parts), context: ctx.value });
}

/** True for an `sgpd`/`sbgp` of grouping type `seig`; malformed ones count as not seig (kept verbatim). */
export function isSeigGroupBox(buf: Buffer, box: BoxHeader): boolean {
  if (box.type !== "sgpd" && box.type !== "sbgp") return false;
  const r = guard(
    box.type,
    () => (box.type === "sgpd" ? parseSeigSgpd(buf, box) : parseSeigSbgp(buf, box)) !== null,
  );
  return r.ok
    ? r.value
    : payloadStart(box) + 8 <= box.end &&
        buf.toString("latin1", payloadStart(box) + 4, payloadStart(box) + 8) === "seig";
}
