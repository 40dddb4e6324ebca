import { boxesIn, findBox } from "./box-reader.js";
import { isSyncSampleFlags, parseMoofOrRaise } from "./fragment-parser.js";
import type { InitInfo } from "./init-parser.js";
import { guard, type Result, raise } from "./parse-result.js";

/** Timing summary of one track in a media fragment. */
export interface FragmentTrackSummary {
  trackId: number;
  /** `tfdt` baseMediaDecodeTime, or `null` when the traf has no tfdt. */
  baseMediaDecodeTime: bigint | null;
  sampleCount: number;
  /** Sum of sample durations, in the track timescale. */
  totalDuration: number;
  /** Whether the first sample is a sync sample (§8.8.3.1 sample_is_non_sync_sample clear). */
  firstSampleIsSync: boolean;
}

/** Summary of the first `moof` in a buffer. */
export interface FragmentSummary {
  sequenceNumber: number;
  tracks: FragmentTrackSummary[];
}

/**
 * Summarises the first movie fragment in `buf`. Pass the parsed init so that
 * `trex` defaults apply when the fragment relies on them.
 *
 * @example
 * const r = inspectFragment(segment, init);
 * if (r.ok && r.value.tracks[0]?.firstSampleIsSync) startNewPart();
 */
export function inspectFragment(buf: Buffer, init?: InitInfo): Result<FragmentSummary> {
  return guard("moof", () => {
    const moofBox = findBox(boxesIn(buf, 0, buf.length, "file"), "moof");
    if (!moofBox) raise("moof", "no moof box");
    const moof = parseMoofOrRaise(
      buf,
      moofBox,
      init?.tracks.flatMap((t) => (t.trex ? [t.trex] : [])) ?? [],
    );
    const tracks = moof.trafs.map((traf): FragmentTrackSummary => {
      const samples = traf.truns.flatMap((t) => t.samples);
      const first = samples[0];
      return {
        trackId: traf.tfhd.trackId,
        baseMediaDecodeTime: traf.baseMediaDecodeTime ?? null,
        sampleCount: samples.length,
        totalDuration: samples.reduce((n, s) => n + s.duration, 0),
        firstSampleIsSync: first !== undefined && isSyncSampleFlags(first.flags),
      };
    });
    return { sequenceNumber: moof.sequenceNumber, tracks };
  });
}
