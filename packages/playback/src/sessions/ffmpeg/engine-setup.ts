import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GatewayConfig } from "@svc/core/config";
import { type ReapReport, reapOrphans } from "./reap-orphans.js";

/**
 * Boot step of the compatibility engine, before any session starts: the folder its
 * sessions write into (`server.data_dir`, else a private temporary folder) and the
 * reaping of every ffmpeg a previous gateway left running when it died without
 * stopping them (SIGKILL, OOM). Returns what was reaped, for the log.
 * @example const { dataDir, reaped } = await prepareFfmpegEngine(config);
 */
export async function prepareFfmpegEngine(
  config: GatewayConfig,
): Promise<{ dataDir: string; reaped: ReapReport }> {
  const dataDir =
    config.server.data_dir !== ""
      ? config.server.data_dir
      : await mkdtemp(join(tmpdir(), "svc-sessions-"));
  return { dataDir, reaped: await reapOrphans(dataDir) };
}
