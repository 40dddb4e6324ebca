export {
  channelFields,
  checkChannelSource,
  checkFallbackSources,
  httpUrl,
  MAX_FALLBACK_SOURCES,
  mediaKeysSchema,
} from "./channel-schema.js";
export {
  assertClusterIdentity,
  clusterIdentityProblems,
  isClusterMode,
} from "./cluster-identity.js";
export { isPostgresUrl, redactDatabaseUrl } from "./database-url.js";
export { ENVIRONMENT_VARIABLES, type Environment, readEnvironment } from "./environment.js";
export { configDirectory, type GatewayConfig, loadConfigFile, parseConfig } from "./load.js";
export { ConfigError, type ConfigProblem, formatProblem, problemsFromIssues } from "./problems.js";
export { type ConfigFile, configSchema, MAX_WORKERS, parseListen } from "./schema.js";
export { workerCount, workerProblems } from "./workers.js";
