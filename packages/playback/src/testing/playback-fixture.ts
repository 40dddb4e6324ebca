import { generateKeyPairSync } from "node:crypto";
import { createSessionTokens, type SessionTokens } from "@svc/core/auth";
import { channelsFromConfig, createStaticCatalog } from "@svc/core/catalog";
import { type GatewayConfig, parseConfig, readEnvironment } from "@svc/core/config";
import { createEgress, type Egress } from "@svc/core/egress";
import {
  type AppEnv,
  type Build,
  createBaseApp,
  type RunningServer,
  startServer,
} from "@svc/core/http";
import { createLogger } from "@svc/core/log";
import type { Hono } from "hono";
import type { LocalIngress } from "../delivery/play-request.js";
import { createPlaybackRuntime, type PlaybackRuntime } from "../playback-runtime.js";

/**
 * The config a playback test runs on: no data dir, a signing key that is never used
 * (tests sign with their own), one admin, and the test's `channels` and `security`.
 */
export function testConfig(
  channels: readonly Record<string, unknown>[],
  security: Record<string, unknown> = {},
): GatewayConfig {
  return parseConfig(
    JSON.stringify({
      server: { data_dir: "" },
      security,
      auth: {
        token_private_key: "unused",
        users: [{ username: "a", password_hash: `$2b$04$${"a".repeat(53)}`, role: "admin" }],
      },
      channels,
    }),
    readEnvironment({}),
  );
}

/** Egress to loopback origins only, with short timeouts (the caller closes it). */
export function loopbackEgress(idleMs = 2_000): Egress {
  return createEgress({
    allowedHosts: ["127.0.0.1"],
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, idleMs },
  });
}

/** The real playback runtime over `config`'s channels. */
export function testRuntime(
  config: GatewayConfig,
  options: {
    egress: Egress;
    build: Build;
    signingKey: string;
    publicBaseUrl?: string;
    localIngress?: LocalIngress;
  },
): PlaybackRuntime {
  return createPlaybackRuntime({
    config,
    catalog: createStaticCatalog(channelsFromConfig(config.channels), []),
    egress: options.egress,
    build: options.build,
    signingKey: Buffer.from(options.signingKey),
    publicBaseUrl: () => options.publicBaseUrl ?? "",
    ...(options.localIngress === undefined ? {} : { localIngress: options.localIngress }),
  });
}

/** The real session-token service on a fresh Ed25519 key (issuer and audience "svc", 1 h). */
export function testSessionTokens(): SessionTokens {
  const pair = generateKeyPairSync("ed25519");
  return createSessionTokens({
    keys: { privateKey: pair.privateKey, publicKey: pair.publicKey, source: "inline" },
    issuer: "svc",
    audience: "svc",
    ttlHours: 1,
  });
}

/**
 * A real server on a loopback port 0: the build's base app (silent log) with each of
 * `mounts` routed at its path, e.g. `{ "/v1/play": createPlayRoutes(rt, …) }`.
 */
export function startTestServer(
  config: GatewayConfig,
  build: Build,
  mounts: Readonly<Record<string, Hono<AppEnv>>>,
): Promise<RunningServer> {
  const app = createBaseApp({ build, config, log: createLogger({ level: "silent", build }) });
  for (const [path, routes] of Object.entries(mounts)) app.route(path, routes);
  return startServer(app, "127.0.0.1:0");
}
