import { randomBytes } from "node:crypto";
import {
  type Channel,
  type ChannelCatalog,
  isPackaged,
  resolveChannelSource,
} from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import { decryptingTransforms } from "../cenc/fragment-decryption.js";
import { type KeyTable, keyTableFromHex } from "../cenc/kid.js";
import { NativePackager } from "../dash/native-packager.js";
import type { FragmentTransformFactory } from "../dash/segmenter/fragment-transform.js";
import { channelRequestHeaders } from "../hls/upstream-headers.js";
import { resolveChannelSources } from "./failover/channel-sources.js";
import type { FailoverReason } from "./failover/failover-reason.js";
import { type FfmpegEngineOptions, FfmpegPackager } from "./ffmpeg-packager.js";
import type { PackagerFactory, SessionEngines } from "./packager.js";
import {
  DEFAULT_STALL_TIMINGS,
  RuntimeSession,
  type SessionMode,
  type SessionStatus,
  type StallTimings,
} from "./runtime-session.js";
import type { SessionState } from "./session-states.js";
import { TsPackager } from "./ts-packager.js";
import { decideSeat, type UpstreamConnections, upstreamConnections } from "./upstream-limits.js";

export interface SessionManagerOptions {
  readonly config: GatewayConfig;
  readonly catalog: ChannelCatalog;
  readonly egress: Egress;
  /**
   * Per-rendition fragment transform; default: ClearKey CENC decryption with the
   * channel's `keys` over `media.keys`.
   */
  readonly transforms?: FragmentTransformFactory;
  /**
   * The ffmpeg compatibility engine: where its sessions write (`server.data_dir`, or a
   * private temporary folder) and optional supervision settings. Without it, sessions
   * that need the engine fail with a clear `last_error`.
   */
  readonly ffmpeg?: Pick<FfmpegEngineOptions, "dataDir" | "egressProxy" | "output" | "supervision">;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
  /** Stall thresholds; defaults: stalled after 8 s without media, restarted after 45 s stalled. */
  readonly stallTimings?: StallTimings;
  /**
   * Cluster mode: a channel is packaged only while this instance holds its lease.
   * Absent: the process packages every channel it is asked for (one instance).
   */
  readonly ownership?: SessionOwnership;
  /** One source failover of a channel with `fallback_sources` (metrics; docs/failover.md). */
  readonly onFailover?: (reason: FailoverReason) => void;
}

/** What the session manager asks of the packaging leases (cluster mode). */
export interface SessionOwnership {
  /** May this instance package the channel now? */
  holds(channelId: string): boolean;
  /** The held lease's generation: the first part of the channel's publication generations. */
  generation(channelId: string): number | undefined;
  /** The channel's session stopped: its lease is given up. */
  release(channelId: string): void;
}

/** Answer of {@link SessionManager.warmup}, shaped for `POST …/warmup` (202 `{state}`). */
export type WarmupResult =
  | { readonly ok: true; readonly state: SessionState }
  | { readonly ok: false; readonly code: "not_found" | "conflict"; readonly message: string };

export interface SessionManager {
  /**
   * The session a play request uses: the running one (touched), or a new one when the
   * channel is `on_demand`; undefined when the channel is not locally packaged or may
   * not start on demand. Throws 503 `unavailable` when the channel's upstream is at its
   * `max_connections` and no session of it is without viewers (upstream-limits.ts).
   */
  open(channel: Channel): RuntimeSession | undefined;
  get(channelId: string): RuntimeSession | undefined;
  /** `POST /v1/admin/channels/{id}/warmup`: start (or keep) the session; 202 `{state}`. */
  warmup(channelId: string): WarmupResult;
  /** `DELETE /v1/admin/sessions/{id}`: stop it; false when there was none (404). */
  stop(channelId: string): Promise<boolean>;
  /** Status of every session (spec `/v1/status` `sessions`), optionally filtered. */
  list(filter?: (channelId: string) => boolean): SessionStatus[];
  /** `/v1/status` `upstreams`: running sessions per configured upstream and its limit. */
  upstreams(): UpstreamConnections[];
  /** Starts the sessions of `autostart` DASH and TS channels (call once the server listens). */
  startAutostart(): void;
  /** Stops every session (shutdown). */
  close(): Promise<void>;
}

/**
 * Owns every runtime session of the process: on-demand start on the first play request,
 * autostart at boot, warmup and stop for the admin API, idle stop after
 * `media.idle_stop_sec` without a viewer request, and the one-second tick that drives
 * stall detection. Each packager start gets a new publication generation.
 *
 * @example
 * const sessions = createSessionManager({ config, catalog, egress });
 * sessions.warmup("news"); // { ok: true, state: "starting" }
 * sessions.list();         // [{ channel_id: "news", state: "starting", … }]
 */
export function createSessionManager(o: SessionManagerOptions): SessionManager {
  const sessions = new Map<string, RuntimeSession>();
  const log = o.log ?? (() => undefined);
  // Generation ids travel in URLs that caches keep as immutable (docs/sessions.md): unique
  // across restarts (a clock start) and across cluster instances (a random suffix per
  // process: two instances started in the same millisecond still differ).
  let generationCounter = Date.now();
  const instanceSuffix = randomBytes(4).readUInt32BE(0).toString(36).padStart(7, "0");
  const keysOf = (id: string) => channelKeyTable(o.config, o.catalog.get(id));
  const transforms = o.transforms ?? decryptingTransforms(keysOf);
  const native: PackagerFactory = (ctx) =>
    new NativePackager({
      ...ctx,
      egress: o.egress,
      lowLatency: o.config.media.low_latency,
      partTargetMs: o.config.media.part_target_ms,
      maxMpdBytes: o.config.security.max_playlist_bytes,
      transforms,
      prefs: preferencesOf(o.catalog.get(ctx.channelId)),
    });
  /** The ffmpeg compatibility engine with the options of one source format. */
  const ffmpegEngine = (
    format: Pick<FfmpegEngineOptions, "keys" | "prefs" | "sourceFormat">,
  ): PackagerFactory | undefined =>
    o.ffmpeg &&
    ((ctx) =>
      new FfmpegPackager(ctx, {
        ...o.ffmpeg!,
        egress: o.egress,
        ffmpegPath: o.config.media.ffmpeg_path,
        maxMpdBytes: o.config.security.max_playlist_bytes,
        ...format,
      }));
  const ffmpeg = ffmpegEngine({
    keys: keysOf,
    prefs: (id) => preferencesOf(o.catalog.get(id)),
  });
  const ts: PackagerFactory = (ctx) =>
    new TsPackager({
      ...ctx,
      egress: o.egress,
      maxPlaylistBytes: o.config.security.max_playlist_bytes,
      // A `dash` channel with fallback sources: the native DASH packager reads the active
      // source (its keys and preferences, one audio language: the TS program carries one).
      ...(ctx.dashSources === undefined
        ? {}
        : {
            openDashSource: (source, hooks) => {
              const prefs = preferencesOf(o.catalog.get(ctx.channelId));
              return new NativePackager({
                channelId: ctx.channelId,
                sourceUrl: source.url,
                headers: source.headers,
                generation: ctx.generation,
                egress: o.egress,
                lowLatency: false,
                partTargetMs: o.config.media.part_target_ms,
                maxMpdBytes: o.config.security.max_playlist_bytes,
                transforms,
                prefs: {
                  ...prefs,
                  preferredAudioLanguages: prefs.preferredAudioLanguages.slice(0, 1),
                },
                ...hooks,
              });
            },
          }),
    });
  const tsFfmpeg = ffmpegEngine({ keys: () => new Map(), sourceFormat: "ts" });
  const engines: SessionEngines = {
    native,
    ts,
    ...(ffmpeg ? { ffmpeg } : {}),
    ...(tsFfmpeg ? { tsFfmpeg } : {}),
  };
  const deps = {
    engines,
    timings: o.stallTimings ?? DEFAULT_STALL_TIMINGS,
    nextGeneration: (channelId: string) => {
      const n = `${(generationCounter++).toString(36)}${instanceSuffix}`;
      // Cluster mode: the lease generation first, so the generation says which
      // acquisition of the channel published it (docs/cluster.md).
      const lease = o.ownership?.generation(channelId);
      return lease === undefined ? n : `${lease.toString(36)}-${n}`;
    },
    sourceUrl: (c: Channel) => resolveChannelSource(c, o.catalog),
    headers: channelRequestHeaders,
    log,
    failover: {
      sources: (c: Channel) => resolveChannelSources(c, o.catalog),
      failbackMs: o.config.media.failback_sec * 1000,
      slateMaxMs: o.config.media.slate_max_sec * 1000,
      count: (reason: FailoverReason) => o.onFailover?.(reason),
    },
  };
  let closed = false;

  const start = (channel: Channel, mode: SessionMode): RuntimeSession => {
    const s = new RuntimeSession(channel, mode, deps);
    sessions.set(channel.id, s);
    void s.begin();
    return s;
  };

  const stop = async (id: string): Promise<boolean> => {
    const s = sessions.get(id);
    if (!s) return false;
    sessions.delete(id);
    await s.stop();
    // A session started again meanwhile keeps the lease.
    if (o.ownership !== undefined && !sessions.has(id)) o.ownership.release(id);
    return true;
  };

  /**
   * Extensions "Connection limits": a seat at the channel's upstream, a session without
   * viewers stopped for it when the upstream is full; the refusal's message otherwise.
   */
  const seat = (channel: Channel): string | undefined => {
    const d = decideSeat(channel, sessions.values(), o.catalog, Date.now());
    if (d.kind === "full") {
      log("upstream full", { channel_id: channel.id, upstream: channel.upstream });
      return d.message;
    }
    if (d.kind === "evict") {
      log("session stopped for the upstream limit", {
        channel_id: d.session.channel.id,
        for_channel: channel.id,
        upstream: channel.upstream,
      });
      void stop(d.session.channel.id);
    }
    return undefined;
  };

  const idleMs = o.config.media.idle_stop_sec * 1000;
  const ticker = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      const channel = o.catalog.get(id);
      // Removed, disabled or edited (new revision): stop; the next play request starts
      // a session with the channel as it is now.
      if (
        !channel ||
        channel.disabled ||
        !isPackaged(channel) ||
        channel.revision !== s.channel.revision
      ) {
        void stop(id);
        continue;
      }
      if (s.mode === "on_demand" && now - s.lastTouch > idleMs) {
        log("session idle stop", { channel_id: id });
        void stop(id);
        continue;
      }
      s.tick(now);
    }
  }, 1000);
  ticker.unref();

  return {
    open(channel) {
      if (closed || !isPackaged(channel)) return undefined;
      const s = sessions.get(channel.id);
      // A session of an edited channel is stopped by the next tick, and a viewer joining it
      // now would be cut off then: an on-demand one stops at once and starts as it is now.
      if (s !== undefined && (s.channel.revision === channel.revision || !channel.on_demand)) {
        s.touch();
        return s;
      }
      if (s !== undefined) void stop(channel.id);
      if (!channel.on_demand) return undefined;
      if (o.ownership !== undefined && !o.ownership.holds(channel.id)) return undefined;
      const refused = seat(channel);
      if (refused !== undefined) throw new GatewayError("unavailable", refused);
      return start(channel, "on_demand");
    },
    get: (id) => sessions.get(id),
    warmup(id) {
      const channel = o.catalog.get(id);
      if (!channel) return { ok: false, code: "not_found", message: "channel not found" };
      if (!isPackaged(channel))
        return {
          ok: false,
          code: "conflict",
          message:
            "only dash and ts channels, and hls channels with fallback sources, have local sessions",
        };
      if (channel.disabled) return { ok: false, code: "conflict", message: "channel is disabled" };
      if (closed) return { ok: false, code: "conflict", message: "shutting down" };
      const s = sessions.get(id);
      if (s) {
        s.touch();
        return { ok: true, state: s.state };
      }
      if (o.ownership !== undefined && !o.ownership.holds(id))
        return { ok: false, code: "conflict", message: "another instance packages this channel" };
      const refused = seat(channel);
      if (refused !== undefined) return { ok: false, code: "conflict", message: refused };
      return {
        ok: true,
        state: start(channel, channel.autostart ? "always_on" : "on_demand").state,
      };
    },
    stop,
    list(filter) {
      return [...sessions.values()]
        .filter((s) => filter === undefined || filter(s.channel.id))
        .map((s) => s.status());
    },
    startAutostart() {
      for (const c of o.catalog.list()) {
        if (isPackaged(c) && c.autostart && !c.disabled && !sessions.has(c.id)) {
          if (o.ownership !== undefined && !o.ownership.holds(c.id)) continue;
          if (seat(c) === undefined) start(c, "always_on");
        }
      }
    },
    upstreams: () => upstreamConnections(o.config.upstreams, sessions.values()),
    async close() {
      closed = true;
      clearInterval(ticker);
      await Promise.all([...sessions.keys()].map((id) => stop(id)));
    },
  };
}

function preferencesOf(channel: Channel | undefined) {
  return {
    ...(channel?.prefer_height == null ? {} : { preferHeight: channel.prefer_height }),
    preferredAudioLanguages: channel?.preferred_audio_languages ?? [],
  };
}

/** The content keys of a channel: its own `keys` over `media.keys` (operator contract). */
export function channelKeyTable(config: GatewayConfig, channel: Channel | undefined): KeyTable {
  const table = keyTableFromHex({ ...config.media.keys, ...channel?.keys });
  // The config schema validated both maps; a bad entry leaves the table empty, so the
  // session reports the KID it misses instead of using a partial table.
  return table.ok ? table.value : new Map();
}
