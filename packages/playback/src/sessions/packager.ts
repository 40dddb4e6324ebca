import type { ChannelPublication } from "../dash/publisher/channel-publication.js";
import type { PackagerCounters } from "../dash/scheduler/packager-counters.js";

/**
 * What a session needs from a packaging engine. The native engine
 * (`dash/native-packager.ts`) implements it; the ffmpeg compatibility engine (issue 6)
 * plugs in through {@link SessionEngines} with the same shape.
 */
export interface Packager {
  readonly engine: "native" | "ffmpeg";
  readonly counters: PackagerCounters;
  readonly publication: ChannelPublication | undefined;
  readonly packMode: "ll-hls" | "hls" | undefined;
  /** Epoch ms of the last published part or segment. */
  readonly lastProgressMs: number;
  readonly isReady: boolean;
  /** Resolves at the first publication (or at stop). */
  readonly ready: Promise<void>;
  start(): Promise<
    | { readonly ok: true }
    | { readonly ok: false; readonly message: string; readonly unsupported?: string }
  >;
  stop(): Promise<void>;
  bytesHeld(): number;
}

/** Everything an engine gets to build one generation's packager. */
export interface PackagerContext {
  readonly channelId: string;
  readonly sourceUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly generation: string;
  onError(message: string): void;
  onFatal(message: string): void;
}

export type PackagerFactory = (ctx: PackagerContext) => Packager;

/** Engines available to the session manager; `ffmpeg` arrives with issue 6. */
export interface SessionEngines {
  readonly native: PackagerFactory;
  readonly ffmpeg?: PackagerFactory;
}
