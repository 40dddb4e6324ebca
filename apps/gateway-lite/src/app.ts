import { availableParallelism } from "node:os";
import {
  accountsFromConfig,
  createLoginRoute,
  createPasswordHasher,
  createRateLimiter,
  createSessionTokens,
  createStaticDirectory,
  loginRoutes,
  resolveSigningKeys,
} from "@svc/core/auth";
import type { ComposedGateway } from "@svc/core/boot";
import { channelsFromConfig, createStaticCatalog } from "@svc/core/catalog";
import type { Environment, GatewayConfig } from "@svc/core/config";
import { lockDataDir } from "@svc/core/data-dir";
import { egressFromConfig } from "@svc/core/egress";
import { createBaseApp, createHealthRoutes, healthRoutes } from "@svc/core/http";
import type { Logger } from "@svc/core/log";
import { routeTableOf } from "@svc/core/route-table";
import {
  createDashLocalIngress,
  createSessionManager,
  prepareFfmpegEngine,
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

/**
 * The lite gateway: exactly the seven lite routes of the spec over the config
 * file's static catalog. No database, no admin API, no guide, no metrics.
 */
export async function composeLite({
  config,
  log,
  env,
}: {
  config: GatewayConfig;
  log: Logger;
  /** The boot's environment (embedders may pass none: libuv's defaults then). */
  env?: Environment;
}): Promise<ComposedGateway> {
  // First: claim data_dir before anything reads or writes it (generated keys, ffmpeg reaping).
  if (config.server.data_dir !== "") lockDataDir(config.server.data_dir);
  const keys = resolveSigningKeys(config);
  const accounts = createStaticDirectory(accountsFromConfig(config));
  const tokens = createSessionTokens({
    keys,
    issuer: config.auth.token_issuer,
    audience: config.auth.token_audience,
    ttlHours: config.auth.token_ttl_hours,
  });
  const catalog = createStaticCatalog(channelsFromConfig(config.channels), config.upstreams);
  const authorizer = createPlaybackAuthorizer({
    requireAuth: config.security.play_require_auth,
    tokens,
    accounts,
  });

  const app = createBaseApp({ build: "lite", config, log });
  // Spec "Lite build": /readyz always reports ready.
  app.route(
    healthRoutes.base,
    createHealthRoutes(() => ({ ready: true })),
  );
  app.route(
    loginRoutes.base,
    createLoginRoute({
      accounts,
      tokens,
      limiter: createRateLimiter(config.auth.login_rate_per_min),
      passwords: createPasswordHasher({
        cores: availableParallelism(),
        threadpoolSize: env?.threadpoolSize,
      }),
    }),
  );
  app.route(
    playlistRoutes.base,
    createPlayback({
      config,
      catalog,
      authorizer,
      publicBaseUrl: () => config.server.public_base_url,
    }),
  );
  const egress = egressFromConfig(config);
  // DASH channels: runtime sessions of the native engine and the ffmpeg compatibility
  // engine; ffmpeg processes a killed predecessor left behind are reaped first.
  const ffmpeg = await prepareFfmpegEngine(config);
  if (ffmpeg.reaped.killed.length > 0 || ffmpeg.reaped.survivors.length > 0)
    log.warn({ reaped: ffmpeg.reaped }, "orphaned ffmpeg processes reaped");
  const sessions = createSessionManager({
    config,
    catalog,
    egress,
    ffmpeg: { dataDir: ffmpeg.dataDir, egressProxy: ffmpeg.proxy },
    log: (event, fields) => log.info(fields, event),
  });
  const playback = createPlaybackRuntime({
    config,
    catalog,
    egress,
    build: "lite",
    signingKey: resolveUrlSigningKey(config, "lite"),
    publicBaseUrl: () => config.server.public_base_url,
    localIngress: createDashLocalIngress({
      sessions,
      build: "lite",
      withCors: config.security.cors_origins.length > 0,
      stats: () => playback.stats,
    }),
  });
  app.route(
    playRoutes.base,
    createPlayRoutes(playback, { resolveGrant: jwtPlayGrant(authorizer) }),
  );
  // Every route declared (the same check as the full build's).
  routeTableOf(app);
  return {
    app,
    fastLane: createPlaylistFastLane(playback, { authorizer, log }),
    facts: async () => ({
      stateDatabase: undefined,
      channels: catalog.list().length,
      ffmpeg: await checkFfmpeg(config.media.ffmpeg_path),
    }),
    started: () => sessions.startAutostart(),
    shutdown: async () => {
      await sessions.close();
      await ffmpeg.proxy.close();
      await egress.close();
    },
  };
}
