import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GatewayConfig } from "@svc/core/config";
import { type EgressProxy, type EgressRoutes, egressProxyFromConfig } from "@svc/core/egress";
import { type ReapReport, reapOrphans } from "./reap-orphans.js";

/** What the compatibility engine runs with, prepared once at boot. */
export interface FfmpegEngineSetup {
  /** Where session folders and pidfiles live. */
  readonly dataDir: string;
  /** ffmpeg processes of a previous gateway that were killed. */
  readonly reaped: ReapReport;
  /** The loopback proxy ffmpeg fetches through (the egress guard); close it after the sessions. */
  readonly proxy: EgressProxy;
}

/**
 * Boot step of the compatibility engine, before any session starts: the folder its
 * sessions write into (`server.data_dir`, else a private temporary folder), the reaping
 * of every ffmpeg a previous gateway left running when it died without stopping them
 * (SIGKILL, OOM), and the egress proxy that puts ffmpeg's own requests behind the same
 * SSRF guard as the gateway's.
 * With `routes` (the full build's egress routing) ffmpeg's requests take the same routes.
 * @example const ffmpeg = await prepareFfmpegEngine(config, egress.routes); // … await ffmpeg.proxy.close()
 */
export async function prepareFfmpegEngine(
  config: GatewayConfig,
  routes?: EgressRoutes,
): Promise<FfmpegEngineSetup> {
  const dataDir =
    config.server.data_dir !== ""
      ? config.server.data_dir
      : await mkdtemp(join(tmpdir(), "svc-sessions-"));
  const reaped = await reapOrphans(dataDir);
  return { dataDir, reaped, proxy: await egressProxyFromConfig(config, routes) };
}
