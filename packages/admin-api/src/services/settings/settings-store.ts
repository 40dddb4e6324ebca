import type { GatewayConfig } from "@svc/core/config";
import { GatewayError } from "@svc/core/errors";
import type { SettingsRepository, SettingsRow } from "../../storage/single-row-repository.js";

export type { SettingsRow } from "../../storage/single-row-repository.js";

/** Spec "Settings": retention default 30 days. */
export const DEFAULT_RETENTION_DAYS = 30;

/** Runtime settings, one row, mirrored in memory (read on every generated URL). */
export interface SettingsStore {
  current(): SettingsRow;
  /**
   * Commits the row (its revision the current one plus one) and then makes it current.
   * Another instance's write since the current row was read is a 409, and the row is reloaded.
   */
  save(row: SettingsRow): Promise<void>;
  /** Replaces the row in memory with the stored one (another instance wrote; idempotent). */
  reload(): Promise<void>;
}

/**
 * Loads the settings row, creating it on the first start from the config file
 * (`server.public_base_url`; TLS enabled when a TLS listener is configured).
 */
export async function createSettingsStore(
  repository: SettingsRepository,
  config: GatewayConfig,
): Promise<SettingsStore> {
  let current = await repository.loadOrCreate({
    id: 1,
    publicBaseUrl: config.server.public_base_url,
    accessLogRetentionDays: DEFAULT_RETENTION_DAYS,
    tlsEnabled: config.server.tls_listen !== "" && config.server.tls_cert_file !== "",
    revision: 1,
    updatedAt: Date.now(),
  });
  const reload = async () => {
    current = (await repository.load()) ?? current;
  };
  return {
    current: () => current,
    async save(next) {
      try {
        await repository.save(next);
      } catch (err) {
        // The 409 stands even when the reload fails; the change feed reloads later.
        if (err instanceof GatewayError && err.code === "conflict") await reload().catch(() => {});
        throw err;
      }
      current = next;
    },
    reload,
  };
}
