import type { GatewayConfig } from "@svc/core/config";
import type { ChannelRepository } from "../../storage/channels/repository.js";

const MARKER = "config_channels_imported";

/**
 * Operator contract "Config file": the config file's `channels:` are imported
 * into the database on the first start only, when the database has no
 * channels. A marker row records that the import ran, so channels deleted later
 * do not come back on the next start; instances starting together on one
 * PostgreSQL import once. Returns how many were imported.
 */
export function importConfigChannels(
  repository: ChannelRepository,
  config: GatewayConfig,
): Promise<number> {
  const now = Date.now();
  return repository.seedOnce(
    MARKER,
    config.channels.map((c) => ({
      ...c,
      revision: 1,
      egress_mode: "auto" as const,
      egress_profile_id: null,
      updated_at: now,
    })),
  );
}
