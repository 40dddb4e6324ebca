import type { EgressProxy } from "@svc/core/egress";
import type { KeyTable } from "../../cenc/kid.js";
import type { FfmpegSource, HlsOutputOptions } from "./ffmpeg-args.js";
import type { FfmpegLayout } from "./ffmpeg-layout.js";
import type { BackoffPolicy } from "./restart-backoff.js";

/**
 * Life of a compatibility-engine session:
 * `starting` (spawned, or waiting out a restart delay) → `running` (the playlist is being
 * written) ⇄ `stalled` (no progress for `stallMs`) → back to `starting` when ffmpeg exits or
 * is killed for stalling; `stopping` → `stopped` on stop(); `failed` when ffmpeg cannot be
 * spawned or failed `maxConsecutiveFailures` times in a row.
 */
export type FfmpegSessionState =
  | "starting"
  | "running"
  | "stalled"
  | "stopping"
  | "stopped"
  | "failed";

/** Watchdog and restart settings; every field has a default. */
export interface SupervisionOptions {
  readonly backoff?: Partial<BackoffPolicy>;
  /** SIGTERM → SIGKILL grace on stop and on a watchdog kill. Default 3000. */
  readonly stopGraceMs?: number;
  /** A run that shows no progress and writes no playlist for this long is restarted. Default 30000. */
  readonly startTimeoutMs?: number;
  /** No progress for this long: `stalled`. Default 10000. */
  readonly stallMs?: number;
  /** No progress for this long: killed and restarted. Default 30000. */
  readonly stallRestartMs?: number;
  /** Watchdog period. Default 500. */
  readonly tickMs?: number;
}

/** Everything a session needs; the session manager fills it from config and channel. */
export interface FfmpegSessionOptions {
  /** `media.ffmpeg_path`. */
  readonly ffmpegPath: string;
  /** `server.data_dir`. */
  readonly dataDir: string;
  readonly channelId: string;
  /** Publication generation: a fresh folder per generation. */
  readonly generation: string | number;
  readonly source: FfmpegSource;
  /**
   * The loopback egress proxy every request of ffmpeg goes through (the SSRF guard). Each
   * run is admitted by its pid with the channel's headers and revoked when it exits;
   * `source.httpProxy` is taken from it. Required when the channel has headers.
   */
  readonly egressProxy?: Pick<EgressProxy, "url" | "admit">;
  /** Origin of the channel source: the only one that gets the sensitive headers. */
  readonly sourceOrigin?: string;
  /**
   * Content keys for an encrypted source, used by the egress proxy (required with it): it
   * hands ffmpeg clear init and media segments (`decrypting-relay.ts`), so no key is ever
   * on ffmpeg's argv. `source.decryptionKey` is the way without a proxy.
   */
  readonly decryption?: KeyTable;
  readonly output?: HlsOutputOptions;
  /**
   * The streams to map and the master playlist to write (`ffmpegLayout`); without it
   * ffmpeg's default choice is published with ffmpeg's own master playlist.
   */
  readonly layout?: FfmpegLayout;
  readonly supervision?: SupervisionOptions;
}

/** How one ffmpeg run ended. */
export interface FfmpegExit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly at: string;
  /** How long the run lasted. */
  readonly run_ms: number;
}

/** A snapshot for the runtime-session status (`state`, `errors`, `last_error`, counters). */
export interface FfmpegSessionStatus {
  readonly state: FfmpegSessionState;
  /** pid (= process group id) of the running ffmpeg. */
  readonly pid: number | null;
  /** The session folder; the playlist is `${dir}/${playlist}`. */
  readonly dir: string;
  readonly playlist: string;
  readonly started_at: string;
  /** When the current run first wrote its playlist. */
  readonly running_since: string | null;
  /** Processes spawned so far (1 + restarts). */
  readonly runs: number;
  readonly restarts: number;
  /** Failed runs in a row (reset by a stable run). */
  readonly consecutive_failures: number;
  /** Times the watchdog saw no progress. */
  readonly stalls: number;
  readonly next_restart_at: string | null;
  readonly last_exit: FfmpegExit | null;
  /** Output position of the current run, from `-progress`. */
  readonly out_time_ms: number;
  /** The last ~4 KiB of ffmpeg's stderr plus the supervisor's own notes, scrubbed of secrets. */
  readonly last_error: string | null;
  /** ffmpeg's argv with header values, the key and URL credentials redacted. */
  readonly command: readonly string[];
}
