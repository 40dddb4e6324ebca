import type { StartFailureCause } from "../dash/inspection/start-check.js";
import type { PackagerStart } from "../dash/native-packager.js";
import type { ChannelPublication } from "../dash/publisher/channel-publication.js";
import type { PackagerCounters } from "../dash/scheduler/packager-counters.js";
import type { SlateHeight } from "./failover/slate-clip.js";
import type { SourceFailover } from "./failover/source-failover.js";
import type { TsFanout } from "./ts/ts-fanout.js";
import type { SegmentContinuity, TsProgramInfo, TsWindow } from "./ts/ts-window.js";

/**
 * What a session needs from a packaging engine. The native engine
 * (`dash/native-packager.ts`) publishes in memory (`publication`); the ffmpeg
 * compatibility engine (`sessions/ffmpeg/ffmpeg-packager.ts`) writes HLS files into
 * `folder`.
 */
export interface Packager {
  readonly engine: "native" | "ffmpeg";
  /** The publication generation of this packager (`g` in every URL it serves). */
  readonly generation: string;
  readonly counters: PackagerCounters;
  readonly publication: ChannelPublication | undefined;
  /** The MPEG-TS segments of a `ts` channel (the TS engine only). */
  readonly tsWindow?: TsWindow;
  /** Additive `packager` fields of the session's `/v1/status` entry (TS engine). */
  statusExtra?(): Record<string, number>;
  /** CODECS and RESOLUTION of a `ts` channel's program for its master playlist (TS engine). */
  tsProgram?(): TsProgramInfo;
  /** The live packets of a `ts` channel for `stream.ts` viewers (the TS engine only). */
  readonly fanout?: TsFanout;
  /** The folder of the HLS files the engine writes (compatibility engine only). */
  readonly folder?: string | undefined;
  readonly packMode: "ll-hls" | "hls" | undefined;
  /** Epoch ms of the last published part or segment. */
  readonly lastProgressMs: number;
  readonly isReady: boolean;
  /** Resolves at the first publication (or at stop). */
  readonly ready: Promise<void>;
  /** `cause` set: every retry would fail the same way (play requests answer with it at once). */
  start(): Promise<PackagerStart>;
  stop(): Promise<void>;
  bytesHeld(): number;
}

/** Everything an engine gets to build one generation's packager. */
export interface PackagerContext {
  readonly channelId: string;
  readonly sourceUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly generation: string;
  /** Segment numbering that goes on across the session's generations (TS engine). */
  readonly continuity?: SegmentContinuity;
  /**
   * A channel with `fallback_sources` (TS engine): which source to connect to, told of
   * failures; `sourceUrl` and `headers` are then the primary's (docs/failover.md).
   */
  readonly failover?: SourceFailover;
  /**
   * An `hls` channel with fallback sources (TS engine): its sources are HLS playlists, read
   * segment by segment (`sessions/ts/hls-ts-relay.ts`) instead of one TS connection.
   */
  readonly hlsSources?: {
    readonly preferHeight: number | null;
    /** The channel's `preferred_audio_languages` (a source's separate audio rendition). */
    readonly audioLanguages?: readonly string[];
  };
  /**
   * A `dash` channel with fallback sources (TS engine): its sources are DASH MPDs, read by
   * the native DASH packager and remuxed to MPEG-TS (`sessions/ts/dash-ts-relay.ts`).
   */
  readonly dashSources?: true;
  /** With `failover`: the slate played while every source is down, and for how long. */
  readonly slate?: {
    readonly height: SlateHeight;
    readonly maxMs: number;
    readonly failbackMs: number;
  };
  onError(message: string): void;
  /** `cause`: how play requests answer while the session is failed (play-waits.ts). */
  onFatal(message: string, cause?: StartFailureCause): void;
}

export type PackagerFactory = (ctx: PackagerContext) => Packager;

/** Engines available to the session manager; without `ffmpeg` its sessions fail. */
export interface SessionEngines {
  readonly native: PackagerFactory;
  readonly ffmpeg?: PackagerFactory;
  /** The TS engine of `ingress: ts` channels; without it their sessions fail. */
  readonly ts?: PackagerFactory;
  /** `engine: ffmpeg` for `ingress: ts` channels (the compatibility engine over the TS source). */
  readonly tsFfmpeg?: PackagerFactory;
}
