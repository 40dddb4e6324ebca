import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveSigningKeys } from "../auth/signing-keys.js";
import { LOG_LEVELS } from "../base/log.js";
import { clusterIdentityProblems, isClusterMode } from "../config/cluster-identity.js";
import type { Environment } from "../config/environment.js";
import { type GatewayConfig, loadConfigFile } from "../config/load.js";
import { ConfigError, type ConfigProblem } from "../config/problems.js";
import { workerProblems } from "../config/workers.js";
import { readTlsFiles } from "../http/tls-files.js";

/** What `--check-config` found: every problem, and the config when the file itself parsed. */
export interface ConfigCheck {
  readonly problems: readonly ConfigProblem[];
  readonly config: GatewayConfig | undefined;
}

/**
 * `--check-config`: the whole validation a start does before it listens (the
 * file, the environment, the session signing key, the TLS pair, the data dir),
 * without writing anything: no generated key, no state database, no data dir.
 * @example const { problems } = checkConfig("gateway.yaml", env, "lite");
 */
export function checkConfig(path: string, env: Environment, build: "full" | "lite"): ConfigCheck {
  const problems: ConfigProblem[] = [...environmentProblems(env)];
  let config: GatewayConfig;
  try {
    config = loadConfigFile(path, env);
  } catch (err) {
    if (err instanceof ConfigError)
      return { problems: [...problems, ...err.problems], config: undefined };
    throw err;
  }
  const collect = (check: () => unknown) => {
    try {
      check();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
    }
  };
  // Contract "Cluster mode" (full build only: the lite build has no database).
  if (build === "full") problems.push(...clusterIdentityProblems(config));
  problems.push(...workerProblems(config, build));
  const dirProblems = dataDirProblems(config, build);
  const generatedKey =
    config.auth.token_private_key === "" && config.auth.token_private_key_file === "";
  // A generated key lives in the data dir: its problem already says what is wrong.
  if (dirProblems.length === 0 || !generatedKey)
    collect(() => resolveSigningKeys(config, { write: false }));
  collect(() => {
    const tls = readTlsFiles(config);
    if (tls !== undefined && Date.parse(tls.certificate.validTo) < Date.now())
      problems.push({
        path: "server.tls_cert_file",
        message: `the certificate expired on ${new Date(tls.certificate.validTo).toISOString()}`,
      });
  });
  problems.push(...dirProblems);
  return { problems, config };
}

/** `SVC_LOG_LEVEL` and `SVC_LOG_FORMAT` with a value the logger would not take. */
export function environmentProblems(env: Environment): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!(LOG_LEVELS as readonly string[]).includes(env.logLevel))
    problems.push({ path: "SVC_LOG_LEVEL", message: `must be one of ${LOG_LEVELS.join(", ")}` });
  if (env.logFormat !== undefined && env.logFormat !== "json" && env.logFormat !== "pretty")
    problems.push({ path: "SVC_LOG_FORMAT", message: 'must be "json" or "pretty"' });
  return problems;
}

/** An existing data dir must be a writable directory; the full build's URL signing key must be usable. */
function dataDirProblems(config: GatewayConfig, build: "full" | "lite"): ConfigProblem[] {
  const dir = config.server.data_dir;
  if (dir === "") return [];
  try {
    if (!statSync(dir).isDirectory())
      return [{ path: "server.data_dir", message: `${dir} is not a directory` }];
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Missing is fine: the first start creates it.
    if (code === "ENOENT") return [];
    return [{ path: "server.data_dir", message: `${dir} is not writable (${code ?? "error"})` }];
  }
  // A cluster instance never reads a generated key (its missing key is named above).
  if (build !== "full" || config.security.signing_key !== "" || isClusterMode(config)) return [];
  const keyFile = join(dir, "auth", "signing.key");
  try {
    if (readFileSync(keyFile, "utf8").trim().length < 32)
      return [
        { path: "security.signing_key", message: `${keyFile} holds fewer than 32 characters` },
      ];
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT")
      return [
        { path: "security.signing_key", message: `cannot read ${keyFile} (${code ?? "error"})` },
      ];
  }
  return [];
}
