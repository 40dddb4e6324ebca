import { hostname } from "node:os";
import {
  createRateLimiter,
  type PasswordHasher,
  type RateLimiter,
  type SessionTokens,
  type SharedUnknownTokenFold,
} from "@svc/core/auth";
import { ConfigError, type GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import type { Logger } from "@svc/core/log";
import type { StreamDoor, ViewerSeatStore } from "@svc/playback/play";
import { Hono } from "hono";
import type { AdminContext, SessionControl } from "./context/admin-context.js";
import type { AdminEnv } from "./context/env.js";
import { credentialGate } from "./http/credential-gate.js";
import { createGatewayMetrics, type PlaybackStats } from "./metrics/gateway-metrics.js";
import { gatherPart, type WorkerPeers } from "./metrics/worker-gather.js";
import { ADMIN_ROUTE_FAMILIES } from "./routes/admin-routes.js";
import { createHdhomerunRoutes, hdhomerunRoutes } from "./routes/hdhomerun.js";
import {
  createKeyPlaylistRoute,
  keyPlaylistRoutes,
  playbackKeyGate,
} from "./routes/key-playback.js";
import { createMetricsRoute, metricsRoutes } from "./routes/metrics.js";
import { statusPart } from "./routes/read-routes.js";
import { FORWARDED_STOP_PATH, forwardedSessionStop } from "./routes/sessions.js";
import { createAccountDirectory } from "./services/accounts/account-directory.js";
import { createApiTokenStore } from "./services/api-tokens/token-store.js";
import { createTokenUsageRecorder } from "./services/api-tokens/usage-recorder.js";
import { createChannelStore } from "./services/channels/channel-store.js";
import { importConfigChannels } from "./services/channels/import-config.js";
import { createMissCatchUp } from "./services/credential-catch-up.js";
import { createEgressStore } from "./services/egress/egress-store.js";
import { createGuideService } from "./services/guide/guide-service.js";
import { createM3uSourceService } from "./services/m3u-sources/m3u-source-service.js";
import { createAccessLog } from "./services/playback-keys/access-log.js";
import { createPlaybackKeyStore } from "./services/playback-keys/key-store.js";
import { createSettingsStore } from "./services/settings/settings-store.js";
import type { ClusterSessionSource } from "./services/status/cluster-sessions.js";
import { bindingOfChannel } from "./storage/channels/stored-channel.js";
import { createPgRateLimiter } from "./storage/login-windows/postgres.js";
import { createSqliteRateLimiter } from "./storage/login-windows/sqlite.js";
import { createRepositories } from "./storage/repositories.js";
import { openStorage, type Storage, type WorkerPush } from "./storage/storage.js";
import { createPgViewerSeatStore } from "./storage/viewer-seats/postgres.js";
import { createSqliteViewerSeatStore } from "./storage/viewer-seats/sqlite.js";

export type { AdminContext, RuntimeSessionView, SessionControl } from "./context/admin-context.js";
export type { AdminEnv } from "./context/env.js";
export type { PlaybackStats } from "./metrics/gateway-metrics.js";
export type { WorkerPeers } from "./metrics/worker-gather.js";
export { hdhomerunRoutes } from "./routes/hdhomerun.js";
export { keyPathParts, keyPlayGrant, keyPlayRoutes } from "./routes/key-playback.js";
export { discoveryDevice } from "./services/hdhomerun/discovery-device.js";
export {
  type DiscoveryResponder,
  startDiscoveryResponder,
} from "./services/hdhomerun/discovery-responder.js";
export type { ClusterSessionSource } from "./services/status/cluster-sessions.js";

/** Session control of an app without a packaging engine: nothing runs. */
const NO_SESSIONS: SessionControl = {
  list: () => [],
  warmup: (id) => ({
    ok: false,
    code: "not_found",
    message: `channel ${id} has no packaging engine`,
  }),
  stop: async () => false,
};

/** Retention purge cadence of the playback access log and the API-token audit log. */
const PURGE_INTERVAL_MS = 3_600_000;

export interface AdminStateOptions {
  readonly config: GatewayConfig;
  readonly log: Logger;
  readonly sessionTokens: SessionTokens;
  readonly limiter: RateLimiter;
  /** The process's one password hasher (shared with the login route). */
  readonly passwords: PasswordHasher;
  readonly defaultUserAgent: string;
  /** The egress playback uses; the admin API's probes go through the same guard and pool. */
  readonly egress: Egress;
  /** Playback counters for `/v1/status` and `/metrics`. */
  readonly playbackStats?: () => PlaybackStats;
  /** Source failovers by reason so far (docs/failover.md), for `svc_failovers_total`. */
  readonly failovers?: () => ReadonlyMap<string, number>;
  /** Runtime sessions; none when the app runs no packaging engine. */
  readonly sessions?: SessionControl;
  /** Benchmarks only: false turns the access log off to measure its cost. */
  readonly accessLog?: boolean;
  /** Cluster mode: the packaging leases `/v1/status` lists the cluster's sessions from. */
  readonly clusterSessions?: ClusterSessionSource;
  /** `active_cons` of a playback key: its streams open on this instance. */
  readonly keyConnections?: (keyId: string) => number;
  /** `stream.ts` of a channel for the HDHomeRun door (the playback stack's). */
  readonly streamDoor?: StreamDoor;
  /** Cluster mode: how this instance names itself in the rows it writes (viewer seats). */
  readonly instance?: () => string;
  /** Workers: the other workers' parts of `/metrics` and `/v1/status`, and the gateway's start. */
  readonly peers?: WorkerPeers;
  /**
   * Workers (`server.workers` > 1): this process is one of several on the SQLite file;
   * its writes are told to the others through this (docs/cluster.md "Workers").
   */
  readonly workerPush?: WorkerPush;
  /** Workers: the gateway's one unknown-token fold, which the primary holds. */
  readonly unknownTokenFold?: SharedUnknownTokenFold;
}

export interface AdminState {
  readonly ctx: AdminContext;
  /** Starts the guide's refresh schedule (once the server listens). */
  startGuide(): void;
  /** Stops the guide's schedule and aborts a refresh in progress; before {@link close}. */
  stopGuide(): Promise<void>;
  /** Starts the M3U provider sources' schedule (extension `m3u_sources`; no-op when off). */
  startM3uSources(): void;
  /** Stops that schedule and waits for a sync in progress; before {@link close}. */
  stopM3uSources(): Promise<void>;
  /** The open state database (SQLite file or PostgreSQL). */
  readonly storage: Storage;
  /**
   * Cluster mode (PostgreSQL) and workers (shared SQLite): the viewer seats every process
   * counts `max_viewers` in; undefined for a single process, which holds its seats in memory.
   */
  readonly viewerSeats: ViewerSeatStore | undefined;
  /** Writes this process's queued usage records (another worker's listing asks it). */
  flushUsage(): Promise<void>;
  /** Workers: this process's part of another worker's gather (`/metrics`, `/v1/status`). */
  gatherPart(what: string): Promise<unknown>;
  /** Writes every queued record, stops timers and closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the state database (migrations applied), imports the config file's
 * channels on the first start, loads accounts with their overrides, and builds
 * the stores the admin routes and the full build's playback use.
 *
 * @example
 * const state = await openAdminState({ config, log, sessionTokens, limiter, defaultUserAgent: "svc-gateway/1", egress });
 * app.route("/", createAdminApp(state.ctx));
 * // catalog for playback: state.ctx.channels; on shutdown, after the listeners closed:
 * await state.close();
 */
export async function openAdminState(options: AdminStateOptions): Promise<AdminState> {
  const { config, log } = options;
  let storage: Storage;
  try {
    storage = await openStorage(config, log, options.workerPush);
  } catch (err) {
    // Reported like a config problem: one line naming the key, exit status 2, nothing started.
    const message = err instanceof Error ? err.message : String(err);
    const path = config.server.database_url !== "" ? "server.database_url" : "server.data_dir";
    throw new ConfigError([{ path, message: `state database: ${message}` }]);
  }
  const repos = createRepositories(storage);
  // Workers: a usage listing first has the other workers write their queued records.
  const flushOthers = async () => {
    await options.workerPush?.usage();
  };
  const imported = await importConfigChannels(repos.channels, config);
  if (imported > 0) log.info({ imported }, "imported channels from the config file");
  // The credential mirrors: the gate and the key gate read memory on every request;
  // the feed reloads them when another instance writes (revocations included).
  const accounts = await createAccountDirectory(config, repos.accounts);
  storage.feed.watch("accounts", accounts.reload);
  const tokens = await createApiTokenStore(repos.apiTokens);
  storage.feed.watch("api_tokens", tokens.reload);
  const keys = await createPlaybackKeyStore(repos.playbackKeys);
  storage.feed.watch("playback_keys", keys.reload);
  const lost = (what: string) => (err: unknown, dropped: number) =>
    log.error({ err, dropped }, `${what}: batch write failed`);
  const settings = await createSettingsStore(repos.settings, config);
  storage.feed.watch("settings", settings.reload);
  const playbackStats =
    options.playbackStats ?? (() => ({ bytes_in: 0, bytes_out: 0, requests: 0, errors: 0 }));
  const sessions = options.sessions ?? NO_SESSIONS;
  const channels = await createChannelStore(repos.channels, config.upstreams);
  storage.feed.watch("channels", channels.reload);
  const egressConfig = await createEgressStore(repos.egress, config, options.egress.routes);
  storage.feed.watch("egress", egressConfig.reload);
  // Every request of a channel routes by its stored binding (spec "Egress").
  options.egress.routes.bindChannels((id) => {
    const ch = channels.get(id);
    return ch === undefined ? undefined : bindingOfChannel(ch);
  });
  const guide = await createGuideService({
    config,
    repository: repos.guide,
    feed: storage.feed,
    egress: options.egress,
    catalog: channels,
    userAgent: options.defaultUserAgent,
    log,
  });
  const m3uSources = createM3uSourceService({
    config,
    repository: repos.m3uSources,
    channels,
    egress: options.egress,
    userAgent: options.defaultUserAgent,
    log,
  });
  const metrics = config.observe.enabled
    ? createGatewayMetrics({
        playback: playbackStats,
        activeSessions: () => sessions.list().length,
        ...(options.failovers === undefined ? {} : { failovers: options.failovers }),
      })
    : undefined;
  const ctx: AdminContext = {
    config,
    feed: storage.feed,
    credentialMisses:
      storage.kind === "postgres" || storage.shared !== undefined
        ? createMissCatchUp(() => storage.feed.catchUp(), {
            onRun: () => metrics?.credentialCatchUp(),
          })
        : undefined,
    accounts,
    sessionTokens: options.sessionTokens,
    passwords: options.passwords,
    limiter:
      storage.kind === "postgres"
        ? createPgRateLimiter(storage.pg, {
            perMinute: config.auth.login_rate_per_min,
            local: createRateLimiter(config.auth.login_rate_per_min),
            onError: (err) => log.warn({ err }, "login limiter: shared counter unavailable"),
          })
        : storage.shared !== undefined
          ? createSqliteRateLimiter(storage.sqlite.$client, {
              perMinute: config.auth.login_rate_per_min,
              local: createRateLimiter(config.auth.login_rate_per_min),
              onError: (err) => log.warn({ err }, "login limiter: shared counter unavailable"),
            })
          : options.limiter,
    channels,
    tokens,
    usage: createTokenUsageRecorder(repos.apiTokens, tokens, lost("API token audit"), {
      flushOthers,
      fold: options.unknownTokenFold,
    }),
    keys,
    accessLog: createAccessLog(repos.playbackKeys, keys, {
      enabled: options.accessLog ?? true,
      onError: lost("access log"),
      flushOthers,
    }),
    settings,
    metrics,
    startedAt: options.peers?.startedAt ?? Date.now(),
    ...(options.peers === undefined ? {} : { peers: options.peers }),
    playbackStats,
    sessions,
    clusterSessions: options.clusterSessions,
    keyConnections: options.keyConnections,
    streamDoor: options.streamDoor,
    defaultUserAgent: options.defaultUserAgent,
    egress: options.egress,
    egressConfig,
    guideActive: () => guide.active(),
    guide,
    m3uSources,
  };
  // `access_log_retention_days` bounds both logs (docs/admin-api.md "Retention").
  const purge = async () => {
    const days = ctx.settings.current().accessLogRetentionDays;
    const deleted = await ctx.accessLog.purge(days);
    if (deleted > 0) log.info({ deleted }, "access log retention purge");
    const audit = await ctx.usage.purge(days);
    if (audit > 0) log.info({ deleted: audit }, "API token audit retention purge");
  };
  await purge();
  const timer = setInterval(
    () => void purge().catch((err: unknown) => log.error({ err }, "retention purge failed")),
    PURGE_INTERVAL_MS,
  );
  timer.unref();
  return {
    ctx,
    startGuide: () => {
      guide.start().catch((err: unknown) => log.error({ err }, "guide schedule failed to start"));
    },
    stopGuide: () => guide.close(),
    startM3uSources: () => {
      if (config.extensions.m3u_sources) m3uSources.start();
    },
    stopM3uSources: () => m3uSources.close(),
    storage,
    gatherPart: (what) => gatherPart(what, { metrics: ctx.metrics, status: () => statusPart(ctx) }),
    async flushUsage() {
      await ctx.usage.flushLocal();
      await ctx.accessLog.flushLocal();
    },
    viewerSeats:
      storage.kind === "postgres"
        ? createPgViewerSeatStore(
            storage.pg,
            options.instance ?? (() => `${hostname()}:${process.pid}`),
          )
        : storage.shared !== undefined
          ? createSqliteViewerSeatStore(
              storage.sqlite.$client,
              options.instance ?? (() => `${hostname()}:${process.pid}`),
            )
          : undefined,
    async close() {
      clearInterval(timer);
      await ctx.usage.close();
      await ctx.accessLog.close();
      await storage.close();
    },
  };
}

/**
 * The credential gate and every admin, read and playback-key route, each family
 * at its base path. Mount at `/` before other routes so the gate sees every request.
 * The play routes at {@link keyPlayRoutes}' base are mounted by the app after this
 * one, with {@link keyPlayGrant}: the key gate registered here runs before them.
 */
export function createAdminApp(ctx: AdminContext): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  if (ctx.metrics !== undefined) app.use(ctx.metrics.middleware);
  app.use(FORWARDED_STOP_PATH, forwardedSessionStop(ctx));
  app.use(
    credentialGate({
      accounts: ctx.accounts,
      sessions: ctx.sessionTokens,
      tokens: ctx.tokens,
      usage: ctx.usage,
      onDenied: (reason) => ctx.metrics?.tokenDenied(reason),
      catchUpOnMiss: ctx.credentialMisses,
    }),
  );
  // Always registered (404 when `observe.enabled` is off): the route table stays the spec's.
  app.route(metricsRoutes.base, createMetricsRoute(ctx.metrics, ctx.peers));
  // Cluster mode, read-after-write (operator contract "Cluster mode"): every admin read
  // and write, on whatever instance the balancer picked, first compares the mirrors with
  // `state_versions` (one query of a handful of rows) and reloads the ones behind, so it
  // reflects every write acknowledged before it was sent and checks If-Match against the
  // database. Chosen over reading every admin answer from the database: the mirrors stay
  // the one code path for both storages, and a reload runs only when something changed.
  // Only for requests the gate authenticated (never anonymous, login or playback ones);
  // a no-op on SQLite (one writer).
  app.use(async (c, next) => {
    if (c.get("principal") !== undefined) await ctx.feed.catchUp();
    await next();
  });
  for (const family of ADMIN_ROUTE_FAMILIES) app.route(family.routes.base, family.create(ctx));
  app.use(`${keyPlaylistRoutes.base}/*`, playbackKeyGate(ctx));
  app.route(keyPlaylistRoutes.base, createKeyPlaylistRoute(ctx));
  // Extensions "HDHomeRun": registered only when switched on (behind the same key gate).
  app.route(hdhomerunRoutes.base, createHdhomerunRoutes(ctx));
  return app;
}
