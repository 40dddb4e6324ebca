import type { Moof } from "./fragment-parser.js";
import { guard, type Result, raise } from "./parse-result.js";

/** Byte range of one sample, relative to the first byte of its `moof`. */
export interface SampleRange {
  offset: number;
  size: number;
}

/** Sample ranges of one `traf` and the base offset its data (and `saio` offsets) are relative to. */
export interface TrafLayout {
  /** Base data offset of the traf, relative to the moof start. */
  base: number;
  samples: SampleRange[];
}

/**
 * Resolves where every sample of every `traf` lives, per ISO/IEC 14496-12 §8.8.7.1:
 * explicit base_data_offset, else default-base-is-moof, else the moof start for
 * the first traf and the end of the previous traf's data for later ones; a trun
 * without data_offset continues where the previous trun's data ended (§8.8.8.1).
 *
 * @param moofFileOffset position of the moof in the file, used only when a
 *   tfhd carries an absolute base_data_offset.
 * @returns one array per traf, in traf order.
 */
export function resolveSampleRanges(
  moof: Moof,
  moofFileOffset = moof.box.start,
): Result<TrafLayout[]> {
  return guard("trun", () => {
    const out: TrafLayout[] = [];
    let previousTrafEnd = 0;
    moof.trafs.forEach((traf, i) => {
      let base: number;
      if (traf.tfhd.baseDataOffset !== undefined) base = traf.tfhd.baseDataOffset - moofFileOffset;
      else if (traf.tfhd.defaultBaseIsMoof || i === 0) base = 0;
      else base = previousTrafEnd;
      const ranges: SampleRange[] = [];
      let cursor = base;
      traf.truns.forEach((trun, j) => {
        if (trun.dataOffset !== undefined) cursor = base + trun.dataOffset;
        else if (j === 0) cursor = base;
        for (const s of trun.samples) {
          if (cursor < 0) raise("trun", `sample data starts before the moof (offset ${cursor})`);
          ranges.push({ offset: cursor, size: s.size });
          cursor += s.size;
          if (!Number.isSafeInteger(cursor)) raise("trun", "sample offsets overflow");
        }
      });
      previousTrafEnd = cursor;
      out.push({ base, samples: ranges });
    });
    return out;
  });
}
