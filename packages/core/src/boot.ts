import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Hono } from "hono";
import { type Environment, readEnvironment } from "./config/environment.js";
import { configDirectory, type GatewayConfig, loadConfigFile } from "./config/load.js";
import { ConfigError, formatProblem } from "./config/problems.js";
import type { RunningServer } from "./http/server.js";
import { startServer } from "./http/server.js";
import type { AppEnv, Build } from "./http/types.js";
import { createLogger, type Logger } from "./log.js";

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
}

export interface BootOptions {
  readonly build: Build;
  readonly argv: readonly string[];
  /** The config path to use when neither `--config` nor `SVC_CONFIG` is given; undefined: required. */
  readonly defaultConfig?: (env: Environment) => Promise<string> | string;
  readonly compose: (ctx: {
    config: GatewayConfig;
    env: Environment;
    log: Logger;
  }) => Promise<ComposedGateway> | ComposedGateway;
}

/** Graceful stop budget of the operator contract: exit within 10 seconds. */
const SHUTDOWN_BUDGET_MS = 9_000;

/**
 * The boot sequence of both binaries: read config (exit 2 on any problem, one
 * line per problem on stderr), compose the app, listen, print
 * `listening on URL`, and stop gracefully on SIGTERM/SIGINT.
 */
export async function bootGateway(options: BootOptions): Promise<void> {
  const env = readEnvironment();
  let config: GatewayConfig;
  let composed: ComposedGateway;
  const log = createLogger({ level: env.logLevel, build: options.build });
  try {
    const path =
      configPathFrom(options.argv) ?? env.configPath ?? (await options.defaultConfig?.(env));
    if (path === undefined) {
      throw new ConfigError([
        { path: "", message: "no config file: pass --config FILE or set SVC_CONFIG" },
      ]);
    }
    config = loadConfigFile(path, env);
    composed = await options.compose({ config, env, log });
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`${formatProblem(p)}\n`);
      process.exit(2);
    }
    throw err;
  }

  const servers: RunningServer[] = [];
  servers.push(await startServer(composed.app, config.server.listen));
  const s = config.server;
  if (s.tls_listen !== "" && s.tls_cert_file !== "" && composed.tlsEnabled !== false) {
    const base = configDirectory(config);
    const tls = {
      cert: readFileSync(resolve(base, s.tls_cert_file)),
      key: readFileSync(resolve(base, s.tls_key_file)),
    };
    servers.push(await startServer(composed.app, s.tls_listen, tls));
  }
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
  for (const server of servers) process.stdout.write(`listening on ${server.url}\n`);
  composed.started?.(servers.map((x) => x.url));
}

/** `--config FILE` or `--config=FILE`. */
function configPathFrom(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--config") return argv[i + 1];
    if (arg.startsWith("--config=")) return arg.slice("--config=".length);
  }
  return undefined;
}
