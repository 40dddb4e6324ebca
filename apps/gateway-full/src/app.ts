import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import {
  createAdminApp,
  type DiscoveryResponder,
  discoveryDevice,
  keyPlayGrant,
  keyPlayRoutes,
  openAdminState,
  startDiscoveryResponder,
} from "@svc/admin-api/admin";
import { channelLeasesFor } from "@svc/admin-api/cluster";
import { consoleRoutes, createConsoleRoutes } from "@svc/admin-api/console";
import { buildOpenApiDocument } from "@svc/admin-api/openapi";
import {
  createServiceInfoRoute,
  type ServiceInfo,
  serviceInfoRoutes,
} from "@svc/admin-api/service-info";
import { createXtreamAccess, createXtreamRoutes, xtreamPlayRoutes } from "@svc/admin-api/xtream";
import {
  createLoginRoute,
  createPasswordHasher,
  createRateLimiter,
  createSessionTokens,
  loginRoutes,
  resolveSigningKeys,
} from "@svc/core/auth";
import type { ComposedGateway, WorkerLink } from "@svc/core/boot";
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
import { createPlaybackStack, createPlaybackStats, newInstanceId } from "@svc/playback/stack";
import { createPlaybackPort } from "./playback-port.js";

function readBuildInfo(): ServiceInfo {
  return JSON.parse(
    readFileSync(new URL("./build-info.json", import.meta.url), "utf8"),
  ) as ServiceInfo;
}

/** Workers: the push that asks the others to write their queued usage records. */
const USAGE_FLUSH = "usage_logs";

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
    worker,
  }: {
    config: GatewayConfig;
    log: Logger;
    /** The boot's environment (embedders may pass none: libuv's defaults then). */
    env?: Environment;
    /** `server.advertise_url` after listen (the boot sequence passes it; embedders may not). */
    advertised?: AdvertisedUrl;
    /** `server.workers` > 1: this process is one of the workers (docs/cluster.md "Workers"). */
    worker?: WorkerLink;
  },
  options: ComposeFullOptions = {},
): Promise<ComposedGateway> {
  // Contract "Cluster mode": a cluster instance is handed its identity, never generates one;
  // refused (exit 2) before data_dir or the database is touched.
  assertClusterIdentity(config);
  // Then: claim data_dir before anything reads or writes it (keys, state.db, ffmpeg reaping).
  // A worker's primary holds it for every worker.
  if (config.server.data_dir !== "" && worker === undefined) lockDataDir(config.server.data_dir);
  const info = readBuildInfo();
  const sessionTokens = createSessionTokens({
    keys: resolveSigningKeys(config),
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
  // One egress for the process: playback and the admin probes share its guard and pool.
  const egress = egressFromConfig(config, { routing: true });
  // Cluster mode: the name of this instance in viewer seats and packaging leases, and the
  // advertised URL (known once the listener is up; no lease is claimed before).
  const instanceId = newInstanceId();
  const self = advertised ?? createAdvertisedUrl(config.server.advertise_url);
  const selfUrl = () => {
    try {
      return self.url();
    } catch {
      return "";
    }
  };
  // Fed by playback, read by `/v1/status` and `/metrics`.
  const stats = createPlaybackStats();
  // The admin state first: playback plays its catalog. What the admin routes ask of
  // playback (sessions, the cluster's leases) goes through the port, connected below.
  const port = createPlaybackPort();
  const state = await openAdminState({
    config,
    log,
    sessionTokens,
    limiter,
    passwords,
    defaultUserAgent: `${info.name}/${info.version}`,
    egress,
    accessLog: options.accessLog ?? true,
    playbackStats: () => stats.snapshot(),
    failovers: () => stats.failovers,
    sessions: port.sessions,
    instance: () => instanceId,
    clusterSessions: port.clusterSessions,
    keyConnections: port.keyConnections,
    streamDoor: port.streamDoor,
    // Workers: a committed write is told to the other workers through the primary;
    // `/metrics` and `/v1/status` gather the other workers' parts through it.
    ...(worker === undefined
      ? {}
      : {
          peers: {
            startedAt: worker.startedAt,
            gather: (what) => worker.gather(what),
          },
          workerPush: {
            written: (r) => worker.push(r),
            usage: () => worker.push(USAGE_FLUSH),
            exclusiveWrite: (task) => worker.exclusiveWrite(task),
          },
          unknownTokenFold: worker.fold,
        }),
  });
  const storage = state.storage;
  // Another worker's write: caught up before the primary tells the writer it may answer,
  // so every request sent after a write's answer finds it on every worker.
  // A usage listing on another worker: this one writes its queued records first.
  worker?.onPush((what) => (what === USAGE_FLUSH ? state.flushUsage() : storage.feed.catchUp()));
  // Another worker's `/metrics` or `/v1/status`: this worker's registry or counters.
  worker?.onGather((what) => state.gatherPart(what));
  const { ctx } = state;
  const publicBaseUrl = () => ctx.settings.current().publicBaseUrl;
  // Extensions "Xtream Codes output": the login of its routes and of its play mount.
  const xtream = createXtreamAccess(ctx);
  // PostgreSQL (cluster mode) or the workers of one host on SQLite: one packager per
  // DASH/TS channel across the processes, leases in the database (docs/cluster.md).
  const clustered = state.storage.kind === "postgres" || worker !== undefined;
  const playback = await createPlaybackStack({
    config,
    build: "full",
    log,
    llhlsTrace: env?.llhlsTrace ?? false,
    catalog: ctx.channels,
    egress,
    egressRoutes: egress.routes,
    tokens: sessionTokens,
    accounts: ctx.accounts,
    publicBaseUrl,
    // Spec "Playlist": x-tvg-url with active guide sources.
    guideUrl: (base) => (ctx.guide.active() ? `${base}/v1/epg.xml.gz` : undefined),
    // The stored egress document, not the config file: API and console changes apply live.
    playlistPolicy: () => ctx.egressConfig.current().document.playlist_policy,
    // Cluster mode: `max_viewers` seats counted in the shared database (undefined: in memory).
    viewerSeats: state.viewerSeats,
    stats,
    // Cluster mode (PostgreSQL): one packager per DASH channel across the instances, the
    // others' channels served from their owner (docs/cluster.md).
    ...(clustered
      ? { cluster: { store: channelLeasesFor(state.storage), instanceId, selfUrl } }
      : {}),
    // Playback keys: the same play routes under `/p/{token}/play` (the key gate runs first).
    // Xtream logins: the same play routes under `/live/{username}/{password}/play`.
    playMounts: [
      { routes: keyPlayRoutes, resolveGrant: keyPlayGrant },
      { routes: xtreamPlayRoutes, resolveGrant: xtream.resolveGrant },
    ],
    ...(ctx.metrics === undefined ? {} : { observe: ctx.metrics.observeRequest }),
  });
  port.connect(playback);

  const app = createBaseApp({ build: "full", config, log });
  // First: the credential gate (route declarations) and the key gate must see every request.
  app.route("/", createAdminApp(ctx));
  app.route(serviceInfoRoutes.base, createServiceInfoRoute(info));
  app.route(
    consoleRoutes.base,
    createConsoleRoutes({
      distDir: fileURLToPath(new URL(".", import.meta.resolve("@svc/console/index.html"))),
      // Built below from the routes this app registered, before the first request.
      openapi: () => openapi,
      publicBaseUrl,
    }),
  );
  app.route(healthRoutes.base, createHealthRoutes(playback.readiness));
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
  // Before the play routes: its access recorder wraps those under `/live/…/play` too.
  app.route("/", createXtreamRoutes(ctx, { access: xtream, play: playback.routes }));
  app.route("/", playback.routes);
  // Refuses to start when a route was registered without its declaration, or declares a
  // credential no gate knows: the credential gate and the document know only declared routes.
  const openapi = buildOpenApiDocument(info, routeTableOf(app));
  let discovery: Promise<DiscoveryResponder> | undefined;
  return {
    app,
    fastLane: playback.fastLane,
    tlsEnabled: ctx.settings.current().tlsEnabled,
    facts: async () => ({ stateDatabase: state.storage.location, ...(await playback.facts()) }),
    started: (urls) => {
      state.startGuide();
      state.startM3uSources();
      // Cluster mode: the boot sequence resolved its own already; an embedder's is resolved here.
      if (clustered && advertised === undefined && urls[0] !== undefined) self.resolve(urls[0]);
      playback.start();
      const hdhr = config.extensions.hdhomerun;
      if (hdhr.enabled && hdhr.udp_discovery) {
        // Extensions "HDHomeRun": discovery on the listen address's host, UDP `udp_port`.
        const origin = urls[0] ?? "http://127.0.0.1";
        discovery = startDiscoveryResponder({
          host: new URL(origin).hostname.replace(/^\[|\]$/g, ""),
          port: hdhr.udp_port,
          device: discoveryDevice(ctx, () => origin),
          onError: (err) => log.warn({ err }, "hdhomerun discovery"),
        });
        discovery.then(
          (d) => log.info({ port: d.port }, "hdhomerun discovery listening"),
          (err: unknown) => log.error({ err }, "hdhomerun discovery could not start"),
        );
      }
    },
    shutdown: async () => {
      await discovery?.then((d) => d.close()).catch(() => undefined);
      await state.stopGuide();
      await state.stopM3uSources();
      await playback.close();
      await egress.close();
    },
    afterClose: () => state.close(),
  };
}
