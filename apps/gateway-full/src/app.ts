import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { createAdminApp, keyPlayGrant, keyPlayRoutes, openAdminState } from "@svc/admin-api/admin";
import { channelLeasesFor } from "@svc/admin-api/cluster";
import { consoleRoutes, createConsoleRoutes } from "@svc/admin-api/console";
import { buildOpenApiDocument } from "@svc/admin-api/openapi";
import {
  createServiceInfoRoute,
  type ServiceInfo,
  serviceInfoRoutes,
} from "@svc/admin-api/service-info";
import {
  createLoginRoute,
  createPasswordHasher,
  createRateLimiter,
  createSessionTokens,
  loginRoutes,
  resolveSigningKeys,
} from "@svc/core/auth";
import type { ComposedGateway } from "@svc/core/boot";
import { assertClusterIdentity, type Environment, type GatewayConfig } from "@svc/core/config";
import { lockDataDir } from "@svc/core/data-dir";
import { egressFromConfig } from "@svc/core/egress";
import {
  type AdvertisedUrl,
  createAdvertisedUrl,
  createBaseApp,
  createHealthRoutes,
  healthRoutes,
} from "@svc/core/http";
import type { Logger } from "@svc/core/log";
import { routeTableOf } from "@svc/core/route-table";
import { createPackagingCluster, type PackagingCluster } from "@svc/playback/cluster";
import {
  createDashLocalIngress,
  createSessionManager,
  dashReadiness,
  prepareFfmpegEngine,
  type SessionManager,
} from "@svc/playback/dash-engine";
import { checkFfmpeg } from "@svc/playback/ffmpeg-engine";
import {
  createPlaybackRuntime,
  createPlaylistFastLane,
  createPlayRoutes,
  jwtPlayGrant,
  playRoutes,
  resolveUrlSigningKey,
} from "@svc/playback/play";
import { createPlayback, createPlaybackAuthorizer, playlistRoutes } from "@svc/playback/routes";

function readBuildInfo(): ServiceInfo {
  return JSON.parse(
    readFileSync(new URL("./build-info.json", import.meta.url), "utf8"),
  ) as ServiceInfo;
}

/** Options for embedding the full gateway (the binary passes none). */
export interface ComposeFullOptions {
  /** Benchmarks only: false turns the playback access log off. */
  readonly accessLog?: boolean;
}

/** The full gateway: the shared core plus everything that needs the state database. */
export async function composeFull(
  {
    config,
    log,
    advertised,
    env,
  }: {
    config: GatewayConfig;
    log: Logger;
    /** The boot's environment (embedders may pass none: libuv's defaults then). */
    env?: Environment;
    /** `server.advertise_url` after listen (the boot sequence passes it; embedders may not). */
    advertised?: AdvertisedUrl;
  },
  options: ComposeFullOptions = {},
): Promise<ComposedGateway> {
  // Contract "Cluster mode": a cluster instance is handed its identity, never generates one;
  // refused (exit 2) before data_dir or the database is touched.
  assertClusterIdentity(config);
  // Then: claim data_dir before anything reads or writes it (keys, state.db, ffmpeg reaping).
  if (config.server.data_dir !== "") lockDataDir(config.server.data_dir);
  const info = readBuildInfo();
  const keys = resolveSigningKeys(config);
  const sessionTokens = createSessionTokens({
    keys,
    issuer: config.auth.token_issuer,
    audience: config.auth.token_audience,
    ttlHours: config.auth.token_ttl_hours,
  });
  // One limiter: login per IP and credential changes per username + IP share it (spec "Limits").
  const limiter = createRateLimiter(config.auth.login_rate_per_min);
  // One hasher: login and credential changes share its slots of libuv's thread pool.
  const passwords = createPasswordHasher({
    cores: availableParallelism(),
    threadpoolSize: env?.threadpoolSize,
  });
  // Filled once the playback runtime and the session manager exist (they need the
  // database-backed catalog first).
  let playbackStats = () => ({ bytes_in: 0, bytes_out: 0, requests: 0, errors: 0 });
  let sessions: SessionManager | undefined;
  let cluster: PackagingCluster | undefined;
  // One egress for the process: playback and the admin probes share its guard and pool.
  const egress = egressFromConfig(config, { routing: true });
  const state = await openAdminState({
    config,
    log,
    sessionTokens,
    limiter,
    passwords,
    defaultUserAgent: `${info.name}/${info.version}`,
    egress,
    accessLog: options.accessLog ?? true,
    playbackStats: () => playbackStats(),
    sessions: {
      list: () => sessions?.list() ?? [],
      warmup: (id) => (cluster ? cluster.warmup(id) : sessions!.warmup(id)),
      stop: (id, requestId) => (cluster ? cluster.stopSession(id, requestId) : sessions!.stop(id)),
      stopForwarded: (id, token) =>
        cluster ? cluster.stopForwarded(id, token) : Promise.resolve(undefined),
    },
    // Cluster mode: viewer seats carry this instance's lease id, and `/v1/status` lists
    // every instance's sessions with their owner.
    instance: () => cluster?.instanceId ?? "",
    clusterSessions: {
      self: () => (cluster === undefined ? undefined : { id: cluster.instanceId, url: selfUrl() }),
      live: () => cluster?.leases() ?? Promise.resolve([]),
    },
  });
  const { ctx } = state;
  const publicBaseUrl = () => ctx.settings.current().publicBaseUrl;
  const authorizer = createPlaybackAuthorizer({
    requireAuth: config.security.play_require_auth,
    tokens: sessionTokens,
    accounts: ctx.accounts,
  });
  // DASH channels: runtime sessions of the native engine and the ffmpeg compatibility
  // engine; ffmpeg processes a killed predecessor left behind are reaped first.
  const ffmpeg = await prepareFfmpegEngine(config, egress.routes);
  if (ffmpeg.reaped.killed.length > 0 || ffmpeg.reaped.survivors.length > 0)
    log.warn({ reaped: ffmpeg.reaped }, "orphaned ffmpeg processes reaped");
  const signingKey = resolveUrlSigningKey(config, "full");
  // Cluster mode (PostgreSQL): one packager per DASH channel across the instances, the
  // others' channels served from their owner (docs/cluster.md). The advertised URL is
  // known once the listener is up; no lease is claimed before.
  const self = advertised ?? createAdvertisedUrl(config.server.advertise_url);
  const selfUrl = () => {
    try {
      return self.url();
    } catch {
      return "";
    }
  };
  if (state.storage.kind === "postgres")
    cluster = createPackagingCluster({
      store: channelLeasesFor(state.storage),
      catalog: ctx.channels,
      signingKey,
      selfUrl,
      sessions: () => manager,
      build: "full",
      withCors: config.security.cors_origins.length > 0,
      stats: () => playback.stats,
      log: (event, fields) => log.info(fields, event),
    });
  const manager = createSessionManager({
    config,
    catalog: ctx.channels,
    egress,
    ffmpeg: { dataDir: ffmpeg.dataDir, egressProxy: ffmpeg.proxy },
    log: (event, fields) => log.info(fields, event),
    ...(cluster === undefined ? {} : { ownership: cluster.ownership }),
  });
  sessions = manager;
  const dashIngress = createDashLocalIngress({
    sessions: manager,
    build: "full",
    withCors: config.security.cors_origins.length > 0,
    stats: () => playback.stats,
  });
  const playback = createPlaybackRuntime({
    config,
    catalog: ctx.channels,
    egress,
    build: "full",
    signingKey,
    publicBaseUrl,
    localIngress: cluster === undefined ? dashIngress : cluster.ingress(dashIngress),
    // The stored egress document, not the config file: API and console changes apply live.
    playlistPolicy: () => ctx.egressConfig.current().document.playlist_policy,
    // Cluster mode: `max_viewers` seats counted in the shared database (undefined: in memory).
    viewerSeats: state.viewerSeats,
    onSeatError: (err, what) => log.warn({ err }, `${what} failed`),
  });
  playbackStats = () => playback.stats.snapshot();

  const app = createBaseApp({ build: "full", config, log });
  // First: the credential gate (route declarations) and the key gate must see every request.
  app.route("/", createAdminApp(ctx));
  app.route(serviceInfoRoutes.base, createServiceInfoRoute(info));
  app.route(
    consoleRoutes.base,
    createConsoleRoutes({
      distDir: fileURLToPath(new URL(".", import.meta.resolve("@svc/console/dist/index.html"))),
      // Built below from the routes this app registered, before the first request.
      openapi: () => openapi,
      publicBaseUrl,
    }),
  );
  app.route(
    healthRoutes.base,
    createHealthRoutes(
      dashReadiness({
        channels: () => ctx.channels.list(),
        sessionEngine: (id) => manager.get(id)?.engine,
        ffmpegPath: config.media.ffmpeg_path,
      }),
    ),
  );
  // ctx.limiter: the one above, or in cluster mode the counter every instance shares.
  app.route(
    loginRoutes.base,
    createLoginRoute({
      accounts: ctx.accounts,
      tokens: sessionTokens,
      limiter: ctx.limiter,
      passwords,
    }),
  );
  app.route(
    playlistRoutes.base,
    createPlayback({
      config,
      catalog: ctx.channels,
      authorizer,
      publicBaseUrl,
      // Spec "Playlist": x-tvg-url with active guide sources.
      guideUrl: (base) => (ctx.guide.active() ? `${base}/v1/epg.xml.gz` : undefined),
    }),
  );
  app.route(
    playRoutes.base,
    createPlayRoutes(playback, {
      resolveGrant: jwtPlayGrant(authorizer),
      ...(cluster === undefined ? {} : { acceptForwarded: cluster.acceptForwarded }),
    }),
  );
  app.route(
    keyPlayRoutes.base,
    createPlayRoutes(playback, { routes: keyPlayRoutes, resolveGrant: keyPlayGrant }),
  );
  // Refuses to start when a route was registered without its declaration, or declares a
  // credential no gate knows: the credential gate and the document know only declared routes.
  const openapi = buildOpenApiDocument(info, routeTableOf(app));
  const metrics = ctx.metrics;
  return {
    app,
    fastLane: createPlaylistFastLane(playback, {
      authorizer,
      log,
      ...(metrics === undefined ? {} : { observe: metrics.observeRequest }),
    }),
    tlsEnabled: ctx.settings.current().tlsEnabled,
    facts: async () => ({
      stateDatabase: state.storage.location,
      channels: ctx.channels.list().length,
      ffmpeg: await checkFfmpeg(config.media.ffmpeg_path),
    }),
    started: (urls) => {
      state.startGuide();
      if (cluster === undefined) manager.startAutostart();
      else {
        // The boot sequence resolved its own already; an embedder's is resolved here.
        if (advertised === undefined && urls[0] !== undefined) self.resolve(urls[0]);
        cluster.startAutostart();
      }
    },
    shutdown: async () => {
      await state.stopGuide();
      await manager.close();
      // After the sessions stopped: their leases go back at once for the others to take.
      await cluster?.close();
      // The last viewer-seat renewals (cluster mode), before the database closes.
      await playback.leases.close?.();
      await ffmpeg.proxy.close();
      await egress.close();
    },
    afterClose: () => state.close(),
  };
}
