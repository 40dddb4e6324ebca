import { Hono } from "hono";
import type { Logger } from "../base/log.js";
import type { GatewayConfig } from "../config/load.js";
import { bodyCeiling } from "./body-ceiling.js";
import { answerOptions, corsPolicy } from "./cors-policy.js";
import { onError, onNotFound } from "./error-handler.js";
import { hostAllowlist } from "./host-allowlist.js";
import { requestContext } from "./request-context.js";
import { securityHeaders } from "./security-headers.js";
import type { AppEnv, Build } from "./types.js";

/**
 * The Hono app both binaries start from: request context and access log,
 * default headers, Host allowlist, CORS, OPTIONS, body ceiling, the one error
 * handler and the 404 fallback. Routes are added by the caller.
 */
export function createBaseApp(options: {
  build: Build;
  config: GatewayConfig;
  log: Logger;
}): Hono<AppEnv> {
  const { build, config, log } = options;
  const app = new Hono<AppEnv>();
  app.use(requestContext(build, log));
  app.use(securityHeaders(build));
  const hosts = hostAllowlist(config.security.public_hosts);
  if (hosts !== undefined) app.use(hosts);
  const cors = corsPolicy(config.security.cors_origins);
  if (cors !== undefined) app.use(cors);
  app.use(answerOptions);
  app.use(bodyCeiling(config.security.max_body_bytes));
  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}
