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
  /** `SVC_PLAY_OPEN=1`: same switch as `security.play_require_auth: false`. */
  readonly playOpen: boolean;
  /** `SVC_LOG_LEVEL`: pino level (default `info`). */
  readonly logLevel: string;
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const nonEmpty = (s: string | undefined) => (s === undefined || s === "" ? undefined : s);
  return Object.freeze({
    configPath: nonEmpty(env.SVC_CONFIG),
    tokenPrivateKey: nonEmpty(env.SVC_TOKEN_PRIVATE_KEY),
    tokenPrivateKeyFile: nonEmpty(env.SVC_TOKEN_PRIVATE_KEY_FILE),
    playOpen: env.SVC_PLAY_OPEN === "1",
    logLevel: nonEmpty(env.SVC_LOG_LEVEL) ?? "info",
  });
}
