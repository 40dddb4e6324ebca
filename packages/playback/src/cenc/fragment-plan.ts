import { type BoxHeader, findBox } from "../mp4/box-reader.js";
import { parseMoofOrRaise, type Traf } from "../mp4/fragment-parser.js";
import { guard, type Result, raise } from "../mp4/parse-result.js";
import { resolveSampleRanges } from "../mp4/sample-layout.js";
import { parseSaio, parseSaiz, parseSenc, readAuxFromSaio, type SampleAux } from "./aux-info.js";
import { type KeyTable, kidHex } from "./kid.js";
import { rewriteMoof } from "./moof-rewrite.js";
import { type CryptoParams, parseSeigSbgp, parseSeigSgpd } from "./protection-boxes.js";
import type { CencScheme, SampleCipher } from "./sample-decrypt.js";
import type { DecryptContext, TrackProtection } from "./track-protection.js";

/** A protected sample: where it is (relative to the moof start) and how to decrypt it. */
export interface PlannedSample {
  offset: number;
  size: number;
  cipher: SampleCipher;
}

/** The clear moof plus the protected samples of the following mdat, sorted by offset. */
export interface FragmentPlan {
  moof: Buffer;
  shrink: number;
  samples: PlannedSample[];
}

const SCHEMES = new Set<string>(["cenc", "cens", "cbc1", "cbcs"]);
const PIFF_SENC_UUID = "a2394f525a9b4f14a2446c427c648df4";

/**
 * Plans the decryption of one moof: resolves per-sample keys, IVs, subsamples and
 * patterns, and rewrites the moof without its encryption boxes.
 *
 * @param moofFileOffset position of the moof in the input stream (for absolute base_data_offset)
 * @param removedBefore bytes the output stream has lost before this moof
 */
export function planFragment(
  buf: Buffer,
  moofBox: BoxHeader,
  ctx: DecryptContext,
  keys: KeyTable,
  moofFileOffset: number,
  removedBefore: number,
): Result<FragmentPlan> {
  return guard("moof", () => {
    const moof = parseMoofOrRaise(buf, moofBox, ctx.trex);
    const layout = resolveSampleRanges(moof, moofFileOffset);
    if (!layout.ok) raise(layout.error.box, layout.error.message);
    const samples: PlannedSample[] = [];
    moof.trafs.forEach((traf, i) => {
      const lay = layout.value[i];
      if (lay) planTraf(buf, moofBox, traf, lay.base, lay.samples, ctx, keys, samples);
    });
    samples.sort((a, b) => a.offset - b.offset);
    for (let i = 1; i < samples.length; i++) {
      const prev = samples[i - 1] as PlannedSample;
      if ((samples[i] as PlannedSample).offset < prev.offset + prev.size)
        raise("trun", "protected samples overlap");
    }
    const rewritten = rewriteMoof(buf, moof, removedBefore);
    return { moof: rewritten.bytes, shrink: rewritten.shrink, samples };
  });
}

function groupParams(
  buf: Buffer,
  traf: Traf,
  track: TrackProtection,
  defaults: CryptoParams,
  count: number,
): CryptoParams[] {
  const local = traf.children
    .filter((b) => b.type === "sgpd")
    .flatMap((b) => parseSeigSgpd(buf, b) ?? []);
  const sbgp = traf.children
    .filter((b) => b.type === "sbgp")
    .map((b) => parseSeigSbgp(buf, b))
    .find((g) => g !== null);
  const out = new Array<CryptoParams>(count).fill(defaults);
  if (!sbgp) return out;
  let i = 0;
  for (const run of sbgp.runs) {
    if (run.count > count - i)
      raise("sbgp", `sample_count runs exceed the ${count} samples of the traf`);
    let p = defaults;
    // ISO/IEC 14496-12 §8.9.4: indices above 0x10000 address the fragment-local sgpd.
    if (run.index > 0x10000)
      p =
        local[run.index - 0x10001] ??
        raise("sbgp", `group_description_index ${run.index} has no local seig entry`);
    else if (run.index > 0)
      p =
        track.stblSeig[run.index - 1] ??
        raise("sbgp", `group_description_index ${run.index} has no seig entry in stbl`);
    out.fill(p, i, i + run.count);
    i += run.count;
  }
  return out;
}

function planTraf(
  buf: Buffer,
  moofBox: BoxHeader,
  traf: Traf,
  base: number,
  ranges: Array<{ offset: number; size: number }>,
  ctx: DecryptContext,
  keys: KeyTable,
  into: PlannedSample[],
): void {
  const track = ctx.tracks.get(traf.tfhd.trackId);
  const index = traf.tfhd.sampleDescriptionIndex ?? track?.trex?.sampleDescriptionIndex ?? 1;
  const entry = track?.entries[index - 1];
  if (!track || !entry) return;
  if (!SCHEMES.has(entry.scheme)) raise("schm", `unsupported scheme '${entry.scheme}'`);
  const scheme = entry.scheme as CencScheme;
  const count = ranges.length;
  const params = groupParams(buf, traf, track, entry.defaults, count);
  if (!params.some((p) => p.isProtected)) return;
  const senc =
    findBox(traf.children, "senc") ??
    traf.children.find((b) => b.type === "uuid" && b.userType === PIFF_SENC_UUID);
  const ivSizeOf = (i: number): number => (params[i] as CryptoParams).perSampleIvSize;
  let aux: SampleAux[] | null = null;
  if (senc) {
    // A PIFF uuid senc has the same layout after its 16-byte extended type.
    aux = parseSenc(buf, senc, count, ivSizeOf);
  } else {
    const saiz = findBox(traf.children, "saiz");
    const saio = findBox(traf.children, "saio");
    if (saiz && saio) {
      const runStarts: number[] = [];
      let n = 0;
      for (const t of traf.truns) {
        runStarts.push(n);
        n += t.samples.length;
      }
      aux = readAuxFromSaio(
        buf,
        moofBox.start,
        moofBox.end,
        base,
        parseSaiz(buf, saiz),
        parseSaio(buf, saio).offsets,
        runStarts,
        count,
        ivSizeOf,
      );
    }
  }
  for (let i = 0; i < count; i++) {
    const p = params[i] as CryptoParams;
    const range = ranges[i] as { offset: number; size: number };
    if (!p.isProtected) continue;
    const a = aux?.[i];
    if (p.perSampleIvSize > 0 && !a) raise("senc", "protected samples without senc or saiz/saio");
    const iv = p.perSampleIvSize > 0 ? (a as SampleAux).iv : p.constantIv;
    if (!iv || iv.length === 0) raise("tenc", "IV size 0 without a constant IV");
    const kid = kidHex(p.kid);
    const key = keys.get(kid);
    if (!key) raise("tenc", `no key for KID ${kid}`);
    into.push({
      offset: range.offset,
      size: range.size,
      cipher: {
        scheme,
        key,
        iv,
        subsamples: a?.subsamples ?? null,
        cryptByteBlock: p.cryptByteBlock,
        skipByteBlock: p.skipByteBlock,
      },
    });
  }
}
