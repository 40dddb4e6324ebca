import { availableParallelism } from "node:os";
import type { GatewayConfig } from "./load.js";
import type { ConfigProblem } from "./problems.js";

/**
 * How many gateway processes `server.workers` asks for (docs/cluster.md "Workers"):
 * `auto` is one per core the process may use (`os.availableParallelism()`, at least 1).
 * @example workerCount(config) // 1 unless server.workers says otherwise
 */
export function workerCount(config: GatewayConfig, cores = availableParallelism()): number {
  const w = config.server.workers;
  return w === "auto" ? Math.max(1, cores) : w;
}

/**
 * What `server.workers` cannot be combined with: the lite build runs one process (it has
 * no state database to share), and several workers run on the embedded SQLite, not on
 * PostgreSQL (a cluster is several instances, each one process). `auto` on a one-core
 * machine is one process and never refused.
 */
export function workerProblems(config: GatewayConfig, build: "full" | "lite"): ConfigProblem[] {
  const w = config.server.workers;
  if (w === 1) return [];
  if (build === "lite")
    return [
      {
        path: "server.workers",
        message: "the lite build runs one process: only 1 is supported (use the full build)",
      },
    ];
  if (config.server.database_url !== "" && workerCount(config) > 1)
    return [
      {
        path: "server.workers",
        message:
          "workers share the embedded SQLite file; with server.database_url run one process per instance (cluster mode)",
      },
    ];
  if (config.server.data_dir === "" && workerCount(config) > 1)
    return [
      {
        path: "server.workers",
        message: "workers share data_dir's SQLite file: set server.data_dir",
      },
    ];
  return [];
}
