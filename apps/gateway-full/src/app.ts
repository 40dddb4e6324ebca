import { readFileSync } from "node:fs";
import { createServiceInfoRoute, type ServiceInfo } from "@svc/admin-api/service-info";
import {
  accountsFromConfig,
  createLoginRoute,
  createRateLimiter,
  createSessionTokens,
  createStaticDirectory,
  resolveSigningKeys,
} from "@svc/core/auth";
import type { ComposedGateway } from "@svc/core/boot";
import type { GatewayConfig } from "@svc/core/config";
import { createBaseApp, createHealthRoutes } from "@svc/core/http";
import type { Logger } from "@svc/core/log";

function readBuildInfo(): ServiceInfo {
  return JSON.parse(
    readFileSync(new URL("./build-info.json", import.meta.url), "utf8"),
  ) as ServiceInfo;
}

/** The full gateway: the shared core plus everything that needs the state database. */
export async function composeFull({
  config,
  log,
}: {
  config: GatewayConfig;
  log: Logger;
}): Promise<ComposedGateway> {
  const keys = resolveSigningKeys(config);
  const accounts = createStaticDirectory(accountsFromConfig(config));
  const tokens = createSessionTokens({
    keys,
    issuer: config.auth.token_issuer,
    audience: config.auth.token_audience,
    ttlHours: config.auth.token_ttl_hours,
  });

  const app = createBaseApp({ build: "full", config, log });
  app.route("/", createServiceInfoRoute(readBuildInfo()));
  app.route(
    "/",
    createHealthRoutes(() => ({ ready: true })),
  );
  app.route(
    "/",
    createLoginRoute({
      accounts,
      tokens,
      limiter: createRateLimiter(config.auth.login_rate_per_min),
    }),
  );
  return { app };
}
