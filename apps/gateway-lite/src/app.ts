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
import { createPlaybackStack } from "@svc/playback/stack";

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
  const accounts = createStaticDirectory(accountsFromConfig(config));
  const tokens = createSessionTokens({
    keys: resolveSigningKeys(config),
    issuer: config.auth.token_issuer,
    audience: config.auth.token_audience,
    ttlHours: config.auth.token_ttl_hours,
  });
  const catalog = createStaticCatalog(channelsFromConfig(config.channels), config.upstreams);
  const egress = egressFromConfig(config);
  const playback = await createPlaybackStack({
    config,
    build: "lite",
    log,
    catalog,
    egress,
    tokens,
    accounts,
    publicBaseUrl: () => config.server.public_base_url,
    llhlsTrace: env?.llhlsTrace ?? false,
  });

  const app = createBaseApp({ build: "lite", config, log });
  app.route(healthRoutes.base, createHealthRoutes(playback.readiness));
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
  app.route("/", playback.routes);
  // Every route declared (the same check as the full build's).
  routeTableOf(app);
  return {
    app,
    fastLane: playback.fastLane,
    facts: async () => ({ stateDatabase: undefined, ...(await playback.facts()) }),
    started: () => playback.start(),
    shutdown: async () => {
      await playback.close();
      await egress.close();
    },
  };
}
