import { boxesIn, findBox, payloadStart } from "../mp4/box-reader.js";
import { isSyncSampleFlags, parseMoofOrRaise } from "../mp4/fragment-parser.js";
import { parseInitOrRaise, type TrexDefaults } from "../mp4/init-parser.js";
import { type AacConfig, adtsHeader, parseAudioSpecificConfig } from "./adts.js";
import { avcParameterSets, hevcParameterSets, toAnnexB, type VideoCodec } from "./annex-b.js";

/** What the remux needs of one track of an init section. */
export type RemuxTrack =
  | {
      readonly kind: "video";
      readonly trackId: number;
      readonly timescale: number;
      readonly codec: VideoCodec;
      readonly nalLengthSize: number;
      readonly parameterSets: readonly Buffer[];
      readonly trex: readonly TrexDefaults[];
    }
  | {
      readonly kind: "audio";
      readonly trackId: number;
      readonly timescale: number;
      readonly aac: AacConfig;
      readonly trex: readonly TrexDefaults[];
    };

/** One access unit in its TS form (Annex B video, ADTS audio), timed in track ticks. */
export interface RemuxSample {
  readonly dts: bigint;
  readonly pts: bigint;
  readonly data: Buffer;
  readonly sync: boolean;
}

export type RemuxResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string };

const VIDEO: Record<string, VideoCodec> = { avc1: "avc", avc3: "avc", hvc1: "hevc", hev1: "hevc" };

/**
 * The track of `handler` (`vide` or `soun`) in an init section, as the native remux to
 * MPEG-TS can carry it: H.264 or H.265 with their parameter sets, AAC with its
 * AudioSpecificConfig. Anything else is an error naming the codec.
 */
export function remuxTrackOfInit(init: Buffer, handler: "vide" | "soun"): RemuxResult<RemuxTrack> {
  try {
    const info = parseInitOrRaise(init);
    const track = info.tracks.find((t) => t.handler === handler);
    if (!track) return { ok: false, error: `the init section has no ${handler} track` };
    const entry = track.sampleEntries[0];
    if (!entry) return { ok: false, error: "the track has no sample entry" };
    if (entry.protection)
      return {
        ok: false,
        error: `the ${entry.format} track is still encrypted (${entry.protection.schemeType})`,
      };
    const trex = track.trex ? [track.trex] : [];
    const kids = entry.children;
    if (handler === "vide") {
      const codec = VIDEO[entry.format];
      if (!codec)
        return {
          ok: false,
          error: `video codec ${entry.format} (the native remux carries H.264 and H.265)`,
        };
      const box = findBox(kids, codec === "avc" ? "avcC" : "hvcC");
      if (!box)
        return {
          ok: false,
          error: `${entry.format} without its ${codec === "avc" ? "avcC" : "hvcC"}`,
        };
      const body = init.subarray(payloadStart(box), box.end);
      const parameterSets = codec === "avc" ? avcParameterSets(body) : hevcParameterSets(body);
      return {
        ok: true,
        value: {
          kind: "video",
          trackId: track.trackId,
          timescale: track.timescale,
          codec,
          nalLengthSize: entry.nalLengthSize ?? 4,
          parameterSets,
          trex,
        },
      };
    }
    if (entry.format !== "mp4a")
      return { ok: false, error: `audio codec ${entry.format} (the native remux carries AAC)` };
    // The init parser read the esds down to its AudioSpecificConfig (mp4/codec-config.ts).
    const asc = entry.esds?.audioSpecificConfig;
    if (asc === undefined) return { ok: false, error: "mp4a without its AudioSpecificConfig" };
    return {
      ok: true,
      value: {
        kind: "audio",
        trackId: track.trackId,
        timescale: track.timescale,
        aac: parseAudioSpecificConfig(asc),
        trex,
      },
    };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The samples of `track` in a media segment (`moof` + `mdat` pairs, ISO/IEC 14496-12
 * 8.8), converted to their TS form, with decode and presentation times from `tfdt` and
 * the sample durations and composition offsets.
 */
export function remuxSamples(segment: Buffer, track: RemuxTrack): RemuxResult<RemuxSample[]> {
  try {
    const out: RemuxSample[] = [];
    for (const box of boxesIn(segment, 0, segment.length, "segment")) {
      if (box.type !== "moof") continue;
      const moof = parseMoofOrRaise(segment, box, track.trex);
      for (const traf of moof.trafs) {
        if (traf.tfhd.trackId !== track.trackId) continue;
        if (traf.baseMediaDecodeTime === undefined)
          return { ok: false, error: "a traf without tfdt" };
        let dts = traf.baseMediaDecodeTime;
        // 8.8.7.1: without base_data_offset the base is the moof's first byte (CMAF sets
        // default-base-is-moof; the first traf of a moof means the same).
        const base = traf.tfhd.baseDataOffset ?? box.start;
        let at = base;
        for (const trun of traf.truns) {
          if (trun.dataOffset !== undefined) at = base + trun.dataOffset;
          for (const s of trun.samples) {
            if (at + s.size > segment.length)
              return { ok: false, error: "sample data past the segment" };
            const raw = segment.subarray(at, at + s.size);
            at += s.size;
            const pts = dts + BigInt(s.compositionOffset);
            const sync = track.kind === "audio" || isSyncSampleFlags(s.flags);
            const data =
              track.kind === "video"
                ? toAnnexB(raw, track.nalLengthSize, track.codec, track.parameterSets, sync)
                : Buffer.concat([adtsHeader(track.aac, raw.length), raw]);
            out.push({ dts, pts, data, sync });
            dts += BigInt(s.duration);
          }
        }
      }
    }
    return { ok: true, value: out };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
