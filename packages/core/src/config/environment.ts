/**
 * The only module that reads `process.env` (STYLE: config resolved once and
 * passed in). Apps call {@link readEnvironment} once at boot.
 */
export interface Environment {
  /** `SVC_CONFIG`: config file path when `--config` is not given. */
  readonly configPath: string | undefined;
  /** `SVC_TOKEN_PRIVATE_KEY`: inline Ed25519 PEM, overriding `auth.token_private_key`. */
  readonly tokenPrivateKey: string | undefined;
  /** `SVC_TOKEN_PRIVATE_KEY_FILE`: key file path, overriding `auth.token_private_key_file`. */
  readonly tokenPrivateKeyFile: string | undefined;
  /** `SVC_DATABASE_URL`: overrides `server.database_url` (keeps the password out of the file). */
  readonly databaseUrl: string | undefined;
  /** `SVC_WORKERS`: overrides `server.workers` (`auto` or a number; checked like the file's). */
  readonly workers: string | undefined;
  /** `SVC_PLAY_OPEN=1`: same switch as `security.play_require_auth: false`. */
  readonly playOpen: boolean;
  /** `SVC_LOG_LEVEL`: pino level (default `info`). */
  readonly logLevel: string;
  /** `SVC_LOG_FORMAT`: `json` or `pretty`; unset: pretty on a terminal, JSON otherwise. */
  readonly logFormat: string | undefined;
  /** `SVC_LLHLS_TRACE=1`: debug trace of the LL-HLS answers on stderr (bench/hlsjs-latency.mjs --trace). */
  readonly llhlsTrace: boolean;
  /** `UV_THREADPOOL_SIZE` (node's own): libuv's thread pool, which bcrypt shares with file and DNS work. */
  readonly threadpoolSize: number | undefined;
}

/** Every variable {@link readEnvironment} reads, with what it does (`--help` prints this table). */
export const ENVIRONMENT_VARIABLES: readonly (readonly [name: string, effect: string])[] = [
  ["SVC_CONFIG", "config file path when --config is not given"],
  ["SVC_TOKEN_PRIVATE_KEY", "inline Ed25519 PEM, overriding auth.token_private_key"],
  ["SVC_TOKEN_PRIVATE_KEY_FILE", "key file path, overriding auth.token_private_key_file"],
  ["SVC_DATABASE_URL", "full build: overrides server.database_url (PostgreSQL, cluster mode)"],
  ["SVC_WORKERS", "full build: overrides server.workers (auto or 1..64 gateway processes)"],
  ["SVC_PLAY_OPEN", "1: same as security.play_require_auth: false"],
  ["SVC_LOG_LEVEL", "fatal, error, warn, info (default), debug, trace or silent"],
  ["SVC_LOG_FORMAT", "json or pretty (default: pretty on a terminal, JSON lines otherwise)"],
  ["SVC_LLHLS_TRACE", "1: debug trace of the LL-HLS answers on stderr (off by default)"],
];

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const nonEmpty = (s: string | undefined) => (s === undefined || s === "" ? undefined : s);
  return Object.freeze({
    configPath: nonEmpty(env.SVC_CONFIG),
    tokenPrivateKey: nonEmpty(env.SVC_TOKEN_PRIVATE_KEY),
    tokenPrivateKeyFile: nonEmpty(env.SVC_TOKEN_PRIVATE_KEY_FILE),
    databaseUrl: nonEmpty(env.SVC_DATABASE_URL),
    workers: nonEmpty(env.SVC_WORKERS),
    playOpen: env.SVC_PLAY_OPEN === "1",
    logLevel: nonEmpty(env.SVC_LOG_LEVEL) ?? "info",
    logFormat: nonEmpty(env.SVC_LOG_FORMAT),
    llhlsTrace: env.SVC_LLHLS_TRACE === "1",
    threadpoolSize: threadpoolSize(env.UV_THREADPOOL_SIZE),
  });
}

/** libuv reads the variable as an integer and clamps it to 1..1024; unset or not a number: its default. */
function threadpoolSize(value: string | undefined): number | undefined {
  const n = Number.parseInt(value ?? "", 10);
  return Number.isFinite(n) ? Math.min(1024, Math.max(1, n)) : undefined;
}
