import cluster from "node:cluster";
import type { Hono } from "hono";
import { createLogger, type Logger, resolveLogFormat } from "../base/log.js";
import { isClusterMode } from "../config/cluster-identity.js";
import type { Environment } from "../config/environment.js";
import { type GatewayConfig, loadConfigFile } from "../config/load.js";
import { ConfigError, formatProblem } from "../config/problems.js";
import { workerCount, workerProblems } from "../config/workers.js";
import { lockDataDir } from "../data-dir/data-dir-lock.js";
import {
  type AdvertisedUrl,
  createAdvertisedUrl,
  isWildcardListenUrl,
} from "../http/advertise-url.js";
import type { FastLane, RunningServer } from "../http/server.js";
import { startServer } from "../http/server.js";
import { readTlsFiles } from "../http/tls-files.js";
import type { AppEnv, Build } from "../http/types.js";
import type { BuildInfo } from "./build-info.js";
import { runPrimary, type WorkerLink, workerLink } from "./workers.js";

/** What the startup summary says beyond the config: the app knows these, boot does not. */
export interface StartupFacts {
  /** The state database file; undefined in the lite build (it has none). */
  readonly stateDatabase: string | undefined;
  readonly channels: number;
  /** The compatibility engine's binary: its version, or why it cannot run. */
  readonly ffmpeg: { ok: true; version: string } | { ok: false; reason: string };
}

/** What an app's composition hands back to the boot sequence. */
export interface ComposedGateway {
  readonly app: Hono<AppEnv>;
  /** Called once on SIGTERM/SIGINT after the listeners stop accepting. */
  readonly shutdown?: () => Promise<void>;
  /** Called once the listeners accept connections (for autostart work). */
  readonly started?: (urls: readonly string[]) => void;
  /** Called once after every listener closed (in-flight requests done): flush queues, close the database. */
  readonly afterClose?: () => Promise<void> | void;
  /** False: the runtime setting turned TLS off, so the `tls_listen` listener is not started. */
  readonly tlsEnabled?: boolean;
  /** Answers tried before the app on every listener (see `FastLane`). */
  readonly fastLane?: FastLane;
  /** Facts for the startup summary, asked once after the listeners are up. */
  readonly facts?: () => Promise<StartupFacts>;
}

export interface BootOptions {
  readonly build: Build;
  readonly info: BuildInfo;
  readonly env: Environment;
  /** The config file to run on (resolved by the command line). */
  readonly configPath: string;
  /** Whether stdout is a terminal (picks the log format unless `SVC_LOG_FORMAT` forces one). */
  readonly stdoutIsTty?: boolean;
  readonly compose: (ctx: {
    config: GatewayConfig;
    env: Environment;
    log: Logger;
    /** `server.advertise_url`, resolved once the listeners are up (contract "Cluster mode"). */
    advertised: AdvertisedUrl;
    /**
     * `server.workers` > 1: this process is worker `index` of several on the SQLite file
     * (docs/cluster.md "Workers"); `advertised` is then its own loopback port.
     */
    worker?: WorkerLink;
  }) => Promise<ComposedGateway> | ComposedGateway;
}

/** Graceful stop budget of the operator contract: exit within 10 seconds. */
const SHUTDOWN_BUDGET_MS = 9_000;

/**
 * The boot sequence of both binaries: read config (exit 2 on any problem, one
 * line per problem on stderr), compose the app, listen, log the startup summary,
 * print `listening on URL`, and stop gracefully on SIGTERM/SIGINT.
 */
export async function bootGateway(options: BootOptions): Promise<void> {
  const { env } = options;
  let config: GatewayConfig;
  let composed: ComposedGateway;
  let tls: ReturnType<typeof readTlsFiles>;
  const format = resolveLogFormat(
    env.logFormat,
    options.stdoutIsTty ?? process.stdout.isTTY === true,
  );
  const link = workerLink();
  const rootLog = createLogger({ level: env.logLevel, build: options.build, format });
  // Workers: every line says which one wrote it (`worker`: 1..N; the primary's say 0).
  const log = link === undefined ? rootLog : rootLog.child({ worker: link.index });
  const { info } = options;
  if (link === undefined)
    log.info(
      { summary: { version: info.version, commit: info.commit, node: process.version } },
      `${info.name} ${options.build} ${info.version} (commit ${info.commit}, node ${process.version})`,
    );
  let advertised: AdvertisedUrl;
  try {
    config = loadConfigFile(options.configPath, env);
    const workerIssues = workerProblems(config, options.build);
    if (workerIssues.length > 0) throw new ConfigError(workerIssues);
    const workers = workerCount(config);
    if (workers > 1 && cluster.isPrimary) {
      // The primary holds data_dir's lock for its workers and serves nothing itself.
      lockDataDir(config.server.data_dir);
      runPrimary({ count: workers, log });
      return;
    }
    tls = readTlsFiles(config);
    // A worker is reached by the others at its own loopback port, whatever the file says.
    advertised = createAdvertisedUrl(link === undefined ? config.server.advertise_url : "");
    composed = await options.compose({
      config,
      env,
      log,
      advertised,
      ...(link === undefined ? {} : { worker: link }),
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`${formatProblem(p)}\n`);
      process.exit(2);
    }
    throw err;
  }

  const servers: RunningServer[] = [];
  servers.push(await startServer(composed.app, config.server.listen, undefined, composed.fastLane));
  if (config.server.tls_listen !== "" && tls !== undefined && composed.tlsEnabled !== false)
    servers.push(await startServer(composed.app, config.server.tls_listen, tls, composed.fastLane));
  else if (tls !== undefined)
    // The full build's runtime setting wins over the file (spec "Settings"): say so,
    // or an operator looks for a listener that was never meant to start.
    log.warn(
      { summary: { tls_listen: config.server.tls_listen, tls_enabled: false } },
      `tls_listen ${config.server.tls_listen}: not started, TLS is turned off in the runtime settings (tls_enabled; PUT /v1/admin/settings, then restart)`,
    );
  const urls = servers.map((x) => x.url);
  if (link !== undefined) {
    // The worker's own port on loopback: where the other workers forward its channels' requests.
    const own = await startServer(composed.app, "127.0.0.1:0", undefined, composed.fastLane, {
      exclusive: true,
    });
    servers.push(own);
    advertised.resolve(own.url);
  } else {
    // The plain listener: the TLS one is a split listener for players (contract "Config file").
    advertised.resolve(urls[0]!);
  }
  if (link === undefined || link.index === 1)
    logStartupSummary(log, config, urls, await composed.facts?.());
  if (isClusterMode(config)) logAdvertised(log, advertised);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    const hardStop = setTimeout(() => process.exit(1), SHUTDOWN_BUDGET_MS + 500);
    hardStop.unref();
    const closing = servers.map((x) => x.close(SHUTDOWN_BUDGET_MS / 2));
    await composed.shutdown?.().catch((err: unknown) => log.error({ err }, "shutdown hook failed"));
    await Promise.all(closing);
    try {
      await composed.afterClose?.();
    } catch (err) {
      log.error({ err }, "after-close hook failed");
    }
    log.flush();
    process.exit(0);
  };
  // Handlers go in before the `listening on` line: a supervisor may signal as soon
  // as it reads it, and without a handler the default action kills the process.
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  // Workers: the primary prints `listening on` once every worker listens.
  if (link === undefined) for (const url of urls) process.stdout.write(`listening on ${url}\n`);
  else link.listening(urls);
  composed.started?.(urls);
}

/**
 * The lines after the build line that an operator reads first (issue 16):
 * listen addresses, data dir, state database, engines and channel count, at
 * `info`, before the `listening on` lines a supervisor waits for. The text says
 * it all; `summary` repeats it as fields for JSON readers.
 */
function logStartupSummary(
  log: Logger,
  config: GatewayConfig,
  urls: readonly string[],
  facts: StartupFacts | undefined,
): void {
  log.info({ summary: { listen: urls } }, `listen: ${urls.join(", ")}`);
  const dataDir = config.server.data_dir;
  log.info(
    { summary: { data_dir: dataDir } },
    `data dir: ${dataDir === "" ? "none (ffmpeg session folders go to a temporary folder)" : dataDir}`,
  );
  log.info(
    { summary: { state_db: facts?.stateDatabase ?? null } },
    `state database: ${facts?.stateDatabase ?? "none (lite build: the catalog is the config file)"}`,
  );
  if (facts === undefined) return;
  const ffmpeg = facts.ffmpeg.ok
    ? `ffmpeg ${facts.ffmpeg.version} (${config.media.ffmpeg_path})`
    : `ffmpeg not available (${facts.ffmpeg.reason}; media.ffmpeg_path: ${config.media.ffmpeg_path}): DASH channels on the ffmpeg engine will not play`;
  log.info(
    { summary: { engines: { native: true, ffmpeg: facts.ffmpeg } } },
    `engines: native (HLS proxy, DASH packager), ${ffmpeg}`,
  );
  log.info({ summary: { channels: facts.channels } }, `channels: ${facts.channels}`);
}

/**
 * Cluster mode: the URL the other instances are told to use, and a warning when it is a
 * wildcard listener's own address (`0.0.0.0`, `::`), which no other machine can dial.
 */
function logAdvertised(log: Logger, advertised: AdvertisedUrl): void {
  const url = advertised.url();
  log.info({ summary: { advertise_url: url } }, `advertise url: ${url}`);
  if (advertised.configured === "" && isWildcardListenUrl(url))
    log.warn(
      { summary: { advertise_url: url } },
      `advertise url ${url}: the listener binds every address, so other instances cannot reach this one by it; set server.advertise_url`,
    );
}

export type { Gathered, WorkerLink } from "./workers.js";
