import { type Channel, packagingOf } from "@svc/core/catalog";
import { isSensitiveHeader } from "@svc/core/egress";
import type { StartFailureCause } from "../dash/inspection/start-check.js";
import type { PackagerCounters } from "../dash/scheduler/packager-counters.js";
import { chooseEngine } from "./engine-choice.js";
import type { ResolvedSource } from "./failover/channel-sources.js";
import type { FailoverReason } from "./failover/failover-reason.js";
import { slateHeightFor } from "./failover/slate-clip.js";
import { SourceFailover } from "./failover/source-failover.js";
import { createScrubber } from "./ffmpeg/secret-scrubber.js";
import type { Packager, PackagerContext, SessionEngines } from "./packager.js";
import { canTransition, restartBackoffMs, type SessionState } from "./session-states.js";

/** How a session runs: `on_demand` stops when idle, `always_on` (autostart) does not. */
export type SessionMode = "on_demand" | "always_on";

/** Spec "Runtime session" fields, plus the generation and the `packager` block. */
export interface SessionStatus {
  readonly channel_id: string;
  /** Extensions "MPEG-TS ingress": sessions of `ts` channels report `ts`. */
  readonly mode: SessionMode | "ts";
  readonly engine: "native" | "ffmpeg";
  /** `ll-hls` (parts published) or `hls`; null before the first publication. */
  readonly pack_mode: "ll-hls" | "hls" | null;
  readonly fallback_reason: string | null;
  readonly started_at: string;
  readonly last_touch: string;
  readonly state: SessionState;
  readonly errors: number;
  readonly last_error: string | null;
  readonly generation: string | null;
  readonly restarts: number;
  readonly packager: (PackagerCounters & { readonly bytes_held: number }) | null;
  /**
   * Extensions "Fallback sources and the slate", on channels with `fallback_sources` only:
   * the index of the source in use (0 = the primary) and the failovers so far.
   */
  readonly active_source?: number;
  readonly failovers?: number;
}

/** What failover needs from the session manager (docs/failover.md). */
export interface FailoverDeps {
  /** The primary and fallback sources of a channel, in order. */
  sources(channel: Channel): ResolvedSource[];
  readonly failbackMs: number;
  readonly slateMaxMs: number;
  /** One failover, for `svc_failovers_total{reason}`. */
  count(reason: FailoverReason): void;
}

/** Stall detection thresholds (defaults below; tests shorten them). */
export interface StallTimings {
  /** No part or segment for this long moves a running session to `stalled`. */
  readonly stallAfterMs: number;
  /** Stalled this long: the packager is restarted (a new generation). */
  readonly restartStalledAfterMs: number;
}

export const DEFAULT_STALL_TIMINGS: StallTimings = {
  stallAfterMs: 8_000,
  restartStalledAfterMs: 45_000,
};

export interface SessionDeps {
  readonly engines: SessionEngines;
  readonly timings: StallTimings;
  nextGeneration(channelId: string): string;
  sourceUrl(channel: Channel): string | undefined;
  headers(channel: Channel): Record<string, string>;
  log(event: string, fields: Record<string, unknown>): void;
  readonly failover?: FailoverDeps;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * One channel's runtime session: owns the current packager, its state machine
 * (session-states.ts), restarts with backoff, and the status the spec exposes.
 */
export class RuntimeSession {
  state: SessionState = "starting";
  readonly startedAt = Date.now();
  lastTouch = Date.now();
  errors = 0;
  lastError: string | null = null;
  /** Why the last start failed for good (play requests answer with it), else null. */
  failureCause: StartFailureCause | null = null;
  restarts = 0;
  engine: "native" | "ffmpeg";
  fallbackReason: string | null = null;
  packager: Packager | undefined;
  private attempt = 0;
  private stalledSince = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private listeners = new Set<() => void>();
  /** The current packager's start succeeded: its source delivers (it may not have published yet). */
  private delivering = false;
  private scrub: ((text: string) => string) | undefined;
  /** TS channels: the media sequence goes on across this session's generations. */
  private readonly continuity = { nextMsn: 0, discontinuitySequence: 0 };
  /** TS channels with `fallback_sources`: the active source, kept across generations. */
  private readonly failover: SourceFailover | undefined;

  constructor(
    readonly channel: Channel,
    readonly mode: SessionMode,
    private readonly deps: SessionDeps,
  ) {
    this.engine = engineOf(channel) === "ffmpeg" ? "ffmpeg" : "native";
    const f = deps.failover;
    if (
      f !== undefined &&
      this.engine === "native" &&
      packagingOf(channel) === "ts" &&
      channel.fallback_sources.length > 0
    ) {
      const sources = f.sources(channel);
      if (sources[0]?.index === 0 && sources.length > 1)
        this.failover = new SourceFailover(sources, {
          channelId: channel.id,
          failbackMs: f.failbackMs,
          log: deps.log,
          count: f.count,
        });
    }
  }

  /** Read through a method: `await`s in between may have moved the state. */
  stopping(): boolean {
    return this.state === "stopping";
  }

  touch(): void {
    this.lastTouch = Date.now();
  }

  private setState(to: SessionState): void {
    if (this.state === to || !canTransition(this.state, to)) return;
    this.deps.log("session state", { channel_id: this.channel.id, from: this.state, to });
    this.state = to;
    this.changed();
  }

  private changed(): void {
    const list = [...this.listeners];
    this.listeners.clear();
    for (const l of list) l();
  }

  private error(message: string): void {
    this.errors += 1;
    // `last_error` is shown to every reader of /v1/status: URLs lose their userinfo and
    // query (signed source URLs carry tokens there), header secrets their values.
    this.scrub ??= createScrubber(
      [
        ...Object.entries(this.deps.headers(this.channel)),
        // The fallback sources' secrets too (extensions "Fallback sources and the slate").
        ...this.channel.fallback_sources.flatMap((f) => Object.entries(f.headers)),
      ]
        .filter(([name]) => isSensitiveHeader(name))
        .map(([, value]) => value),
    );
    this.lastError = this.scrub(message);
  }

  /** Starts a packager (a new generation) and follows it to `running` or `failed`. */
  async begin(): Promise<void> {
    if (this.state === "stopping") return;
    this.failureCause = null;
    this.delivering = false;
    const source = this.deps.sourceUrl(this.channel);
    if (source === undefined) return this.fail("channel source is not configured");
    let choice = chooseEngine(engineOf(this.channel), undefined);
    for (;;) {
      const ts = packagingOf(this.channel) === "ts";
      const factory = ts
        ? choice.engine === "ffmpeg"
          ? this.deps.engines.tsFfmpeg
          : this.deps.engines.ts
        : choice.engine === "native"
          ? this.deps.engines.native
          : this.deps.engines.ffmpeg;
      this.engine = choice.engine;
      this.fallbackReason = choice.fallbackReason;
      if (factory === undefined) {
        if (ts && choice.engine === "native")
          return this.fail("the MPEG-TS engine is not available");
        const why = choice.fallbackReason === null ? "" : ` (native: ${choice.fallbackReason})`;
        return this.fail(`the ffmpeg compatibility engine is not available${why}`);
      }
      const packager = factory(this.context(source));
      this.packager = packager;
      const started = await packager.start();
      if (this.packager !== packager || this.stopping()) {
        await packager.stop();
        return;
      }
      if (started.ok) break;
      await packager.stop();
      this.packager = undefined;
      if (!ts && choice.engine === "native" && started.unsupported !== undefined) {
        const next = chooseEngine(engineOf(this.channel), started.unsupported);
        if (next.engine !== choice.engine) {
          choice = next;
          continue;
        }
      }
      this.failureCause = started.cause ?? null;
      return this.fail(started.message);
    }
    const packager = this.packager;
    this.delivering = true;
    this.changed();
    await packager.ready;
    if (this.packager !== packager || this.stopping() || !packager.isReady) return;
    this.attempt = 0;
    this.setState("running");
  }

  private context(sourceUrl: string): PackagerContext {
    const generation = this.deps.nextGeneration(this.channel.id);
    const mine = () => this.packager?.generation === generation || this.state === "starting";
    return {
      channelId: this.channel.id,
      sourceUrl,
      headers: this.deps.headers(this.channel),
      generation,
      ...(packagingOf(this.channel) === "ts" ? { continuity: this.continuity } : {}),
      // An `hls` channel with fallback sources: the TS engine reads its sources' playlists.
      ...(this.channel.ingress === "hls"
        ? {
            hlsSources: {
              preferHeight: this.channel.prefer_height,
              audioLanguages: this.channel.preferred_audio_languages,
            },
          }
        : {}),
      // A `dash` channel with fallback sources: the TS engine reads its sources' MPDs.
      ...(this.channel.ingress === "dash" && packagingOf(this.channel) === "ts"
        ? { dashSources: true as const }
        : {}),
      ...(this.failover === undefined || this.deps.failover === undefined
        ? {}
        : {
            failover: this.failover,
            slate: {
              height: slateHeightFor(this.channel.prefer_height),
              maxMs: this.deps.failover.slateMaxMs,
              failbackMs: this.deps.failover.failbackMs,
            },
          }),
      onError: (m) => {
        if (mine()) this.error(m);
      },
      onFatal: (m, cause) => {
        if (mine()) void this.restart(m, cause);
      },
    };
  }

  private fail(message: string): void {
    this.error(message);
    this.setState("failed");
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.state !== "failed") return;
    this.attempt += 1;
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (this.state !== "failed") return;
      this.restarts += 1;
      this.setState("starting");
      void this.begin();
    }, restartBackoffMs(this.attempt));
    this.restartTimer.unref();
  }

  /** The packager gave up: drop it and start a new generation after the backoff. */
  private async restart(message: string, cause?: StartFailureCause): Promise<void> {
    const old = this.packager;
    this.packager = undefined;
    this.failureCause = cause ?? null;
    this.fail(message);
    await old?.stop();
  }

  /** Called every second by the manager: stall detection. */
  tick(now: number): void {
    const p = this.packager;
    if (!p?.isReady) return;
    const quiet = now - p.lastProgressMs;
    const { stallAfterMs, restartStalledAfterMs } = this.deps.timings;
    if (this.state === "running" && quiet > stallAfterMs) {
      this.stalledSince = now;
      this.error("no new media from the source");
      this.setState("stalled");
    } else if (this.state === "stalled" && quiet <= stallAfterMs) {
      this.setState("running");
    } else if (this.state === "stalled" && now - this.stalledSince > restartStalledAfterMs) {
      void this.restart("source stalled");
    }
  }

  /**
   * True once published (or, `until: "delivering"`, once the packager's source delivers:
   * a `stream.ts` viewer joins at the first random-access point, before the first segment
   * is complete); waits up to `timeoutMs` (or until `signal` aborts).
   */
  async whenReady(
    timeoutMs: number,
    signal?: AbortSignal,
    until: "published" | "delivering" = "published",
  ): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.packager?.isReady && (this.state === "running" || this.state === "stalled"))
        return true;
      if (
        until === "delivering" &&
        this.delivering &&
        this.packager !== undefined &&
        this.state === "starting"
      )
        return true;
      const left = deadline - Date.now();
      // A failed session answers at once (503); its restart is already scheduled.
      if (left <= 0 || signal?.aborted || this.stopping() || this.state === "failed") return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.listeners.delete(done);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const t = setTimeout(done, left);
        this.listeners.add(done);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }

  async stop(): Promise<void> {
    this.setState("stopping");
    clearTimeout(this.restartTimer);
    const p = this.packager;
    this.packager = undefined;
    this.changed();
    await p?.stop();
  }

  status(): SessionStatus {
    const p = this.packager;
    return {
      channel_id: this.channel.id,
      mode: packagingOf(this.channel) === "ts" ? "ts" : this.mode,
      engine: this.engine,
      pack_mode: p?.packMode ?? null,
      fallback_reason: this.fallbackReason,
      started_at: iso(this.startedAt),
      last_touch: iso(this.lastTouch),
      state: this.state,
      errors: this.errors,
      last_error: this.lastError,
      generation: p?.generation ?? null,
      restarts: this.restarts,
      packager: p ? { ...p.counters, bytes_held: p.bytesHeld(), ...p.statusExtra?.() } : null,
      ...(this.failover === undefined
        ? {}
        : { active_source: this.failover.active, failovers: this.failover.failovers }),
    };
  }
}

/**
 * The engine a channel asks for: its `engine`, except that an `hls` channel, and a `dash`
 * channel packaged for its fallback sources, always run the native TS engine (the ffmpeg
 * engine reads one source and cannot switch).
 */
function engineOf(channel: Channel): Channel["engine"] {
  return channel.ingress === "hls" || (channel.ingress === "dash" && packagingOf(channel) === "ts")
    ? "native"
    : channel.engine;
}
