import { readFileSync } from "node:fs";
import { createAdminApp, openAdminState } from "@svc/admin-api/admin";
import { createServiceInfoRoute, type ServiceInfo } from "@svc/admin-api/service-info";
import {
  createLoginRoute,
  createRateLimiter,
  createSessionTokens,
  resolveSigningKeys,
} from "@svc/core/auth";
import type { ComposedGateway } from "@svc/core/boot";
import type { GatewayConfig } from "@svc/core/config";
import { createBaseApp, createHealthRoutes } from "@svc/core/http";
import type { Logger } from "@svc/core/log";
import { createPlayback, createPlaybackAuthorizer } from "@svc/playback/routes";
import { assertRoutesInTable } from "./route-check.js";

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
  { config, log }: { config: GatewayConfig; log: Logger },
  options: ComposeFullOptions = {},
): Promise<ComposedGateway> {
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
  const state = openAdminState({
    config,
    log,
    sessionTokens,
    limiter,
    defaultUserAgent: `${info.name}/${info.version}`,
    accessLog: options.accessLog ?? true,
  });
  const { ctx } = state;

  const app = createBaseApp({ build: "full", config, log });
  app.route("/", createAdminApp(ctx));
  app.route("/", createServiceInfoRoute(info));
  app.route(
    "/",
    createHealthRoutes(() => ({ ready: true })),
  );
  app.route("/", createLoginRoute({ accounts: ctx.accounts, tokens: sessionTokens, limiter }));
  app.route(
    "/",
    createPlayback({
      config,
      catalog: ctx.channels,
      authorizer: createPlaybackAuthorizer({
        requireAuth: config.security.play_require_auth,
        tokens: sessionTokens,
        accounts: ctx.accounts,
      }),
      publicBaseUrl: () => ctx.settings.current().publicBaseUrl,
    }),
  );
  assertRoutesInTable(app);
  return {
    app,
    tlsEnabled: ctx.settings.current().tlsEnabled,
    afterClose: () => state.close(),
  };
}
