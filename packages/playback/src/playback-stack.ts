import type { AccountDirectory, SessionTokens } from "@svc/core/auth";
import type { ChannelCatalog } from "@svc/core/catalog";
import type { GatewayConfig } from "@svc/core/config";
import type { Egress, EgressRoutes } from "@svc/core/egress";
import type { AppEnv, Build, FastLane, Readiness } from "@svc/core/http";
import type { Logger } from "@svc/core/log";
import { Hono } from "hono";
import type { ChannelLeaseStore, LeaseHolder, LeaseView } from "./cluster/channel-lease-store.js";
import { joinCluster } from "./cluster/cluster-membership.js";
import { createPackagingCluster } from "./cluster/packaging-cluster.js";
import { enableLlTrace } from "./dash/publisher/ll-trace.js";
import { createPlaybackStats, type PlaybackStats } from "./delivery/playback-stats.js";
import type { ViewerSeatStore } from "./hls/cluster-viewer-leases.js";
import type { PlaylistPolicy } from "./hls/playlist-policy.js";
import type { KeyConnections } from "./key-connections.js";
import { createPlaybackAuthorizer } from "./play-auth.js";
import { jwtPlayGrant, type ResolveGrant } from "./play-grant.js";
import {
  createPlayRoutes,
  createStreamDoor,
  type PlayRouteFamily,
  playRoutes,
  type StreamDoor,
} from "./play-routes.js";
import { createPlaybackRuntime } from "./playback-runtime.js";
import { createPlaylistFastLane } from "./playlist-fast-lane.js";
import { createPlayback, playlistRoutes } from "./routes.js";
import { createDashLocalIngress } from "./sessions/dash-local-ingress.js";
import { prepareFfmpegEngine } from "./sessions/ffmpeg/engine-setup.js";
import { checkFfmpeg, type FfmpegStatus } from "./sessions/ffmpeg/ffmpeg-check.js";
import { dashReadiness } from "./sessions/ffmpeg/readiness.js";
import type { SessionStatus } from "./sessions/runtime-session.js";
import { createSessionManager, type WarmupResult } from "./sessions/session-manager.js";
import type { UpstreamConnections } from "./sessions/upstream-limits.js";
import { resolveUrlSigningKey } from "./signing-key.js";

/** What the playback stack is built from; the app decides where each comes from. */
export interface PlaybackStackDeps {
  /** `SVC_LLHLS_TRACE=1` (the boot's environment): the LL-HLS debug trace (dash/publisher/ll-trace.ts). */
  readonly llhlsTrace?: boolean;
  readonly config: GatewayConfig;
  readonly build: Build;
  readonly log: Logger;
  /** The channels: the config file's (lite) or the state database's (full). */
  readonly catalog: ChannelCatalog;
  /** The process's one egress; the app closes it after the stack. */
  readonly egress: Egress;
  /** Full build: ffmpeg's own requests take the same egress routes as the gateway's. */
  readonly egressRoutes?: EgressRoutes;
  /** What the play credential is checked against: session tokens and accounts. */
  readonly tokens: SessionTokens;
  readonly accounts: AccountDirectory;
  /** Current `public_base_url` (runtime-editable in the full build). */
  readonly publicBaseUrl: () => string;
  /** `x-tvg-url` of the channel playlist while guide sources are active (full build). */
  readonly guideUrl?: (base: string) => string | undefined;
  /** The current `playlist_policy` (full build: the stored egress document's). */
  readonly playlistPolicy?: () => PlaylistPolicy;
  /** Cluster mode: `max_viewers` seats counted in the shared database. */
  readonly viewerSeats?: ViewerSeatStore;
  /** The counters to feed, when the app made them first (the admin status reads them). */
  readonly stats?: PlaybackStats;
  /** Cluster mode: one packager per DASH channel across the instances (docs/cluster.md). */
  readonly cluster?: {
    readonly store: ChannelLeaseStore;
    readonly instanceId: string;
    /** Where the others reach this instance; "" until it listens (no lease is claimed before). */
    readonly selfUrl: () => string;
  };
  /** More mounts of the play routes, each a declared family with its credential form (`/p/{token}/play`). */
  readonly playMounts?: readonly {
    readonly routes: PlayRouteFamily;
    readonly resolveGrant: ResolveGrant;
  }[];
  /** The full build's request metrics, kept by the fast lane as the middleware would. */
  readonly observe?: (method: string, route: string, status: number, seconds: number) => void;
}

/** Runtime sessions as the admin routes control them (status, warmup, stop). */
export interface PlaybackSessions {
  list(): SessionStatus[];
  warmup(channelId: string): WarmupResult | Promise<WarmupResult>;
  stop(channelId: string, requestId?: string): Promise<boolean>;
  /** A stop another instance forwarded: undefined when its token is not good. */
  stopForwarded(channelId: string, token: string): Promise<boolean | undefined>;
  /** Extensions "Connection limits": this instance's connections per configured upstream. */
  upstreams(): UpstreamConnections[];
}

/** Built once per process by {@link createPlaybackStack}. */
export interface PlaybackStack {
  /** `GET /v1/playlist.m3u`, `/v1/play/…` and the extra play mounts: mount at "/". */
  readonly routes: Hono<AppEnv>;
  /** Cached live playlists answered before the app (docs/performance.md). */
  readonly fastLane: FastLane;
  /** `/readyz`: the lite build is always ready; the full build asks for ffmpeg when needed. */
  readonly readiness: () => Readiness | Promise<Readiness>;
  /** For the startup summary. */
  facts(): Promise<{ channels: number; ffmpeg: FfmpegStatus }>;
  /** `bytes_in`, `bytes_out`, `requests`, `errors` of `/v1/status`. */
  readonly stats: PlaybackStats;
  readonly sessions: PlaybackSessions;
  /** Streams open under each playback key (extensions "Connection limits"). */
  readonly keyConnections: KeyConnections;
  /** `stream.ts` of a channel for a door with a grant of its own (HDHomeRun `auto/v`). */
  readonly streamDoor: StreamDoor;
  /** Cluster mode: this instance as leases name it (undefined outside), and every live lease. */
  readonly cluster: {
    self(): LeaseHolder | undefined;
    live(): Promise<readonly LeaseView[]>;
  };
  /** Once the listeners accept connections: autostart channels (and, clustered, the sweep). */
  start(): void;
  /** Shutdown: sessions, leases, the last seat renewals and ffmpeg's egress proxy. */
  close(): Promise<void>;
}

/**
 * The playback half of both gateways, built in dependency order: counters, the ffmpeg
 * engine's boot step (orphans reaped), the cluster membership, the session manager, the
 * packaging cluster, the local ingress, the runtime, then its routes and fast lane.
 *
 * @example
 * const playback = await createPlaybackStack({ config, build: "lite", log, catalog, egress,
 *   tokens, accounts, publicBaseUrl: () => config.server.public_base_url });
 * app.route("/", createHealthRoutes(playback.readiness));
 * app.route("/", playback.routes);
 */
export async function createPlaybackStack(deps: PlaybackStackDeps): Promise<PlaybackStack> {
  const { config, build, log, catalog, egress } = deps;
  if (deps.llhlsTrace) enableLlTrace();
  const withCors = config.security.cors_origins.length > 0;
  const logEvent = (event: string, fields: Record<string, unknown>) => log.info(fields, event);
  const stats = deps.stats ?? createPlaybackStats();
  const signingKey = resolveUrlSigningKey(config, build);
  // DASH channels: runtime sessions of the native engine and the ffmpeg compatibility
  // engine; ffmpeg processes a killed predecessor left behind are reaped first.
  const ffmpeg = await prepareFfmpegEngine(config, deps.egressRoutes);
  if (ffmpeg.reaped.killed.length > 0 || ffmpeg.reaped.survivors.length > 0)
    log.warn({ reaped: ffmpeg.reaped }, "orphaned ffmpeg processes reaped");
  const membership =
    deps.cluster === undefined ? undefined : joinCluster({ ...deps.cluster, log: logEvent });
  const manager = createSessionManager({
    config,
    catalog,
    egress,
    ffmpeg: { dataDir: ffmpeg.dataDir, egressProxy: ffmpeg.proxy },
    log: logEvent,
    onFailover: (reason) => stats.failovers.set(reason, (stats.failovers.get(reason) ?? 0) + 1),
    ...(membership === undefined ? {} : { ownership: membership.ownership }),
  });
  const cluster =
    membership === undefined
      ? undefined
      : createPackagingCluster({
          membership,
          sessions: manager,
          catalog,
          signingKey,
          build,
          withCors,
          stats: () => stats,
          log: logEvent,
        });
  const dashIngress = createDashLocalIngress({
    sessions: manager,
    build,
    withCors,
    stats: () => stats,
  });
  const runtime = createPlaybackRuntime({
    config,
    catalog,
    egress,
    build,
    signingKey,
    publicBaseUrl: deps.publicBaseUrl,
    localIngress: cluster === undefined ? dashIngress : cluster.ingress(dashIngress),
    stats,
    ...(deps.playlistPolicy === undefined ? {} : { playlistPolicy: deps.playlistPolicy }),
    ...(deps.viewerSeats === undefined ? {} : { viewerSeats: deps.viewerSeats }),
    onSeatError: (err, what) => log.warn({ err }, `${what} failed`),
  });
  const authorizer = createPlaybackAuthorizer({
    requireAuth: config.security.play_require_auth,
    tokens: deps.tokens,
    accounts: deps.accounts,
  });

  const routes = new Hono<AppEnv>();
  routes.route(
    playlistRoutes.base,
    createPlayback({
      config,
      catalog,
      authorizer,
      publicBaseUrl: deps.publicBaseUrl,
      ...(deps.guideUrl === undefined ? {} : { guideUrl: deps.guideUrl }),
    }),
  );
  routes.route(
    playRoutes.base,
    createPlayRoutes(runtime, {
      resolveGrant: jwtPlayGrant(authorizer),
      ...(cluster === undefined ? {} : { acceptForwarded: cluster.acceptForwarded }),
    }),
  );
  for (const mount of deps.playMounts ?? [])
    routes.route(
      mount.routes.base,
      createPlayRoutes(runtime, { routes: mount.routes, resolveGrant: mount.resolveGrant }),
    );

  return {
    routes,
    keyConnections: runtime.keyConnections,
    streamDoor: createStreamDoor(runtime),
    fastLane: createPlaylistFastLane(runtime, {
      authorizer,
      log,
      ...(deps.observe === undefined ? {} : { observe: deps.observe }),
    }),
    // Spec "Lite build": /readyz always reports ready.
    readiness:
      build === "lite"
        ? () => ({ ready: true })
        : dashReadiness({
            channels: () => catalog.list(),
            sessionEngine: (id) => manager.get(id)?.engine,
            ffmpegPath: config.media.ffmpeg_path,
          }),
    facts: async () => ({
      channels: catalog.list().length,
      ffmpeg: await checkFfmpeg(config.media.ffmpeg_path),
    }),
    stats,
    sessions: {
      list: () => manager.list(),
      warmup: (id) => (cluster === undefined ? manager.warmup(id) : cluster.warmup(id)),
      stop: (id, requestId) =>
        cluster === undefined ? manager.stop(id) : cluster.stopSession(id, requestId),
      stopForwarded: (id, token) =>
        cluster === undefined ? Promise.resolve(undefined) : cluster.stopForwarded(id, token),
      upstreams: () => manager.upstreams(),
    },
    cluster: {
      self: () =>
        membership === undefined
          ? undefined
          : { id: membership.instanceId, url: membership.selfUrl() },
      live: () => (cluster === undefined ? Promise.resolve([]) : cluster.leases()),
    },
    start: () => (cluster === undefined ? manager.startAutostart() : cluster.startAutostart()),
    async close() {
      await manager.close();
      // After the sessions stopped: their leases go back at once for the others to take.
      await cluster?.close();
      // The last viewer-seat renewals (cluster mode), before the database closes.
      await runtime.leases.close?.();
      await runtime.keyConnections.close();
      await ffmpeg.proxy.close();
    },
  };
}
