import {
  type RemuxResult,
  type RemuxSample,
  type RemuxTrack,
  remuxSamples,
  remuxTrackOfInit,
} from "./fmp4-samples.js";
import { TsMuxer } from "./ts-muxer.js";

/** PTS/DTS run this far (90 kHz: 1.4 s) ahead of the media time, so the PCR never goes below 0. */
export const TIME_OFFSET = 126_000;

/**
 * Remuxes the media segments of one init section (a CMAF HLS rendition: video, audio or
 * both muxed) to MPEG-TS, segment by segment, with one {@link TsMuxer} for the whole
 * stream so counters and PSI repetition run on. Samples of both tracks are written in
 * DTS order; a segment that starts with an IDR starts with PAT and PMT.
 * @example
 * const r = Fmp4SegmentRemuxer.of(init);
 * if (r.ok) out.push(...r.value.segment(bytes));
 */
export class Fmp4SegmentRemuxer {
  private readonly muxer: TsMuxer;

  private constructor(
    private readonly video: RemuxTrack | undefined,
    private readonly audio: RemuxTrack | undefined,
  ) {
    this.muxer = new TsMuxer({
      ...(video?.kind === "video" ? { video: video.codec } : {}),
      ...(audio ? { audio: "aac" as const } : {}),
    });
  }

  /** A remuxer for `init`, or why its tracks cannot be carried (the codec named). */
  static of(init: Buffer): RemuxResult<Fmp4SegmentRemuxer> {
    const video = remuxTrackOfInit(init, "vide");
    const audio = remuxTrackOfInit(init, "soun");
    const missing = (r: RemuxResult<RemuxTrack>) =>
      !r.ok && r.error.startsWith("the init section has no");
    if (!video.ok && !missing(video)) return video;
    if (!audio.ok && !missing(audio)) return audio;
    if (!video.ok && !audio.ok)
      return { ok: false, error: "the init section has no video or audio track" };
    return {
      ok: true,
      value: new Fmp4SegmentRemuxer(
        video.ok ? video.value : undefined,
        audio.ok ? audio.value : undefined,
      ),
    };
  }

  /** The TS packets of one media segment. */
  segment(bytes: Buffer): RemuxResult<Buffer[]> {
    const lanes: { track: RemuxTrack; samples: RemuxSample[] }[] = [];
    for (const track of [this.video, this.audio]) {
      if (!track) continue;
      const r = remuxSamples(bytes, track);
      if (!r.ok) return r;
      lanes.push({ track, samples: r.value });
    }
    const timed = lanes.flatMap(({ track, samples }) => {
      const scale = BigInt(track.timescale);
      return samples.map((s) => ({
        kind: track.kind,
        dts: Number((s.dts * 90_000n) / scale) + TIME_OFFSET,
        pts: Number((s.pts * 90_000n) / scale) + TIME_OFFSET,
        data: s.data,
        sync: s.sync,
      }));
    });
    // Stable: at equal DTS the video sample (listed first) goes first.
    timed.sort((a, b) => a.dts - b.dts);
    const out: Buffer[] = [];
    for (const s of timed)
      out.push(
        ...(s.kind === "video"
          ? this.muxer.video(s.data, s.pts, s.dts, s.sync)
          : this.muxer.audio(s.data, s.pts)),
      );
    return { ok: true, value: out };
  }
}
