import type { GatewayConfig } from "./load.js";
import { ConfigError, type ConfigProblem } from "./problems.js";

/** Contract "Cluster mode": the full build on a shared database (`server.database_url`). */
export function isClusterMode(config: GatewayConfig): boolean {
  return config.server.database_url !== "";
}

const REASON = "required in cluster mode (server.database_url is set)";

/**
 * What a cluster instance must be given instead of generating (contract "Cluster mode"):
 * the Ed25519 session key (`auth.token_private_key` or `_file`, or their env variables)
 * and `security.signing_key`. A key generated into each instance's own `data_dir` would
 * make a session, a preview token, a signed `u/` URL or a viewer lease minted on one
 * instance fail on the next. One problem per missing key; none outside cluster mode.
 * @example clusterIdentityProblems(config) // [{ path: "security.signing_key", message: "required in cluster mode (…)" }]
 */
export function clusterIdentityProblems(config: GatewayConfig): ConfigProblem[] {
  if (!isClusterMode(config)) return [];
  const problems: ConfigProblem[] = [];
  const { auth, security } = config;
  if (auth.token_private_key === "" && auth.token_private_key_file === "")
    problems.push({ path: "auth.token_private_key", message: REASON });
  if (security.signing_key === "") problems.push({ path: "security.signing_key", message: REASON });
  return problems;
}

/**
 * Throws {@link ConfigError} (exit 2, one line per problem) when a cluster config lacks its
 * shared identity. The full build calls it first, before it touches `data_dir` or the database.
 */
export function assertClusterIdentity(config: GatewayConfig): void {
  const problems = clusterIdentityProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
}
