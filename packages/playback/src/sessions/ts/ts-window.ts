import { PREFIX_MARK } from "../../dash/publisher/channel-publication.js";
import { formatSeconds } from "../../dash/publisher/hls-format.js";
import { renderMasterPlaylist } from "../../dash/publisher/master-playlist.js";
import { QUERY_MARK } from "../../dash/publisher/rendition-window.js";
import type { TsSegment } from "../../ts/segment-cutter.js";

/** Where a channel's numbering goes on across generations (owned by its runtime session). */
export interface SegmentContinuity {
  nextMsn: number;
  discontinuitySequence: number;
}

export interface TsWindowSegment {
  readonly msn: number;
  readonly durationSec: number;
  readonly discontinuity: boolean;
  readonly bytes: Buffer;
}

export interface TsWindowOptions {
  /** Publication generation carried as `g` in every URI. */
  readonly generation: string;
  /** Complete segments kept (and served) at most. */
  readonly maxSegments: number;
  /** The cutter's segment target: the lowest EXT-X-TARGETDURATION published. */
  readonly targetSec: number;
  /** Numbering to continue (a new generation of a running session); absent: from 0. */
  readonly continuity?: SegmentContinuity;
}

/** What the master playlist says of the program (read from its PMT and SPS). */
export interface TsProgramInfo {
  /** RFC 6381 CODECS, once the PMT and (with video) the SPS were read. */
  readonly codecs?: string;
  readonly width?: number;
  readonly height?: number;
}

/** The name of the media playlist under `live/`. */
export const TS_MEDIA_PLAYLIST = "media.m3u8";

/** What a `live/s-{msn}.ts` lookup finds. */
export type TsWindowFile =
  | { readonly kind: "bytes"; readonly bytes: Buffer }
  | { readonly kind: "future" }
  | { readonly kind: "gone" };

/**
 * The published state of a TS channel: a bounded window of MPEG-TS segments and the
 * media playlist rendered from it (once per change, with {@link PREFIX_MARK} and
 * {@link QUERY_MARK} where each request's URL prefix and query go).
 *
 * The media sequence never goes back: a reconnect keeps counting and flags a
 * discontinuity, and a new generation of the same session continues the numbering it
 * was handed (RFC 8216bis 6.2.2: EXT-X-DISCONTINUITY-SEQUENCE counts the discontinuities
 * that left the window).
 */
export class TsWindow {
  readonly generation: string;
  readonly segments: TsWindowSegment[] = [];
  private readonly continuity: SegmentContinuity;
  private targetDurationSec: number;
  private flagNext: boolean;
  private cached: string | undefined;

  constructor(private readonly opts: TsWindowOptions) {
    this.generation = opts.generation;
    this.continuity = opts.continuity ?? { nextMsn: 0, discontinuitySequence: 0 };
    this.targetDurationSec = Math.max(1, Math.round(opts.targetSec));
    // A new generation after earlier ones: players holding the old window see a splice.
    this.flagNext = this.continuity.nextMsn > 0;
  }

  get lastMsn(): number {
    return this.segments.at(-1)?.msn ?? -1;
  }

  add(seg: TsSegment): TsWindowSegment {
    const out: TsWindowSegment = {
      msn: this.continuity.nextMsn++,
      durationSec: seg.durationSec,
      discontinuity: seg.discontinuity || this.flagNext,
      bytes: seg.bytes,
    };
    this.flagNext = false;
    this.segments.push(out);
    // RFC 8216bis 4.4.3.1: TARGETDURATION may not change; a GOP longer than the target
    // raises it once rather than publish an EXTINF above it (docs/ts-ingress.md).
    this.targetDurationSec = Math.max(this.targetDurationSec, Math.round(seg.durationSec));
    while (this.segments.length > this.opts.maxSegments) {
      const gone = this.segments.shift()!;
      if (gone.discontinuity) this.continuity.discontinuitySequence += 1;
    }
    // A segment's tag counts for it and every later one (RFC 8216bis 6.2.2): once the
    // tagged segment leaves, the count it carried moves into EXT-X-DISCONTINUITY-SEQUENCE.
    this.cached = undefined;
    return out;
  }

  /**
   * The master playlist (`index.m3u8`): one variant, the media playlist of this
   * generation, with BANDWIDTH the peak rate of the segments in the window (RFC 8216bis
   * 4.4.6.2), CODECS and RESOLUTION when they were read; undefined before the first segment.
   */
  renderMaster(info: TsProgramInfo): string | undefined {
    if (this.segments.length === 0) return undefined;
    return renderMasterPlaylist({
      version: 3,
      // A cut forced without a random-access point starts a segment that is not independent.
      independentSegments: false,
      audio: [],
      variants: [
        {
          uri: `${PREFIX_MARK}live/${TS_MEDIA_PLAYLIST}?g=${this.generation}${QUERY_MARK}`,
          bandwidth: this.peakBitsPerSecond(),
          ...(info.codecs === undefined ? {} : { codecs: info.codecs }),
          ...(info.width === undefined || info.height === undefined
            ? {}
            : { width: info.width, height: info.height }),
        },
      ],
    });
  }

  /** The highest segment bit rate in the window (bits per second of the whole TS). */
  peakBitsPerSecond(): number {
    let peak = 0;
    for (const s of this.segments)
      if (s.durationSec > 0) peak = Math.max(peak, (s.bytes.length * 8) / s.durationSec);
    return Math.max(1, Math.round(peak));
  }

  /** The media playlist; undefined before the first segment. */
  render(): string | undefined {
    if (this.segments.length === 0) return undefined;
    if (this.cached !== undefined) return this.cached;
    const lines = [
      "#EXTM3U",
      "#EXT-X-VERSION:3",
      `#EXT-X-TARGETDURATION:${this.targetDurationSec}`,
      `#EXT-X-MEDIA-SEQUENCE:${this.segments[0]!.msn}`,
      `#EXT-X-DISCONTINUITY-SEQUENCE:${this.continuity.discontinuitySequence}`,
    ];
    for (const s of this.segments) {
      if (s.discontinuity) lines.push("#EXT-X-DISCONTINUITY");
      lines.push(`#EXTINF:${formatSeconds(s.durationSec)},`);
      lines.push(`${PREFIX_MARK}live/s-${s.msn}.ts?g=${this.generation}${QUERY_MARK}`);
    }
    this.cached = `${lines.join("\n")}\n`;
    return this.cached;
  }

  segmentFile(msn: number): TsWindowFile {
    const s = this.segments.find((x) => x.msn === msn);
    if (s) return { kind: "bytes", bytes: s.bytes };
    return msn > this.lastMsn ? { kind: "future" } : { kind: "gone" };
  }

  bytesHeld(): number {
    let n = 0;
    for (const s of this.segments) n += s.bytes.length;
    return n;
  }
}

/** `live/` segment names of a TS channel: `s-{msn}.ts` (besides {@link TS_MEDIA_PLAYLIST}). */
export function parseTsLiveFile(file: string): number | undefined {
  const m = /^s-(\d{1,15})\.ts$/.exec(file);
  return m ? Number(m[1]) : undefined;
}
