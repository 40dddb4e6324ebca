import { boxesIn } from "./box-reader.js";
import { guard, type Result, raise } from "./parse-result.js";

/** One CMAF chunk: `[start, end)` covers any boxes before the moof, the moof and its mdat. */
export interface ChunkRange {
  start: number;
  end: number;
  moofStart: number;
  mdatStart: number;
}

/** Boxes that may precede a moof and belong to its chunk (ISO/IEC 23000-19 §7.3.2). */
const PREFIX_BOXES = new Set(["styp", "prft", "emsg", "sidx", "free", "skip"]);

/**
 * Splits a media segment into `[prefix boxes, moof, mdat]` chunks, e.g. for LL-HLS parts.
 * Boxes other than the prefix types before a moof, or a moof without a following mdat, are errors.
 *
 * @example
 * const r = splitChunks(segment);
 * if (r.ok) for (const c of r.value) publishPart(segment.subarray(c.start, c.end));
 */
export function splitChunks(buf: Buffer): Result<ChunkRange[]> {
  return guard("file", () => {
    const boxes = boxesIn(buf, 0, buf.length, "file");
    const chunks: ChunkRange[] = [];
    let chunkStart: number | null = null;
    let moofStart: number | null = null;
    for (const box of boxes) {
      if (moofStart === null) {
        if (box.type === "moof") {
          moofStart = box.start;
          chunkStart ??= box.start;
        } else if (PREFIX_BOXES.has(box.type)) {
          chunkStart ??= box.start;
        } else if (box.type === "mdat") {
          raise("mdat", `mdat at ${box.start} without a preceding moof`);
        } else {
          raise(box.type, `unexpected ${box.type} at ${box.start} in a media segment`);
        }
      } else if (box.type === "mdat") {
        chunks.push({
          start: chunkStart ?? moofStart,
          end: box.end,
          moofStart,
          mdatStart: box.start,
        });
        chunkStart = null;
        moofStart = null;
      } else if (box.type === "moof") {
        raise("moof", `moof at ${box.start} follows a moof without an mdat`);
      }
    }
    if (moofStart !== null) raise("moof", `moof at ${moofStart} has no mdat`);
    return chunks;
  });
}
