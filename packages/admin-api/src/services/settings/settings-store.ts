import type { GatewayConfig } from "@svc/core/config";
import { eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { settings } from "../../db/schema/index.js";

export type SettingsRow = typeof settings.$inferSelect;

/** Spec "Settings": retention default 30 days. */
export const DEFAULT_RETENTION_DAYS = 30;

/** Runtime settings, one row, mirrored in memory (read on every generated URL). */
export interface SettingsStore {
  current(): SettingsRow;
  /** Commits the row and then makes it current. */
  save(row: SettingsRow): void;
}

/**
 * Loads the settings row, creating it on the first start from the config file
 * (`server.public_base_url`; TLS enabled when a TLS listener is configured).
 */
export function createSettingsStore(db: StateDb, config: GatewayConfig): SettingsStore {
  let row = db.select().from(settings).where(eq(settings.id, 1)).get();
  if (row === undefined) {
    row = {
      id: 1,
      publicBaseUrl: config.server.public_base_url,
      accessLogRetentionDays: DEFAULT_RETENTION_DAYS,
      tlsEnabled: config.server.tls_listen !== "" && config.server.tls_cert_file !== "",
      revision: 1,
      updatedAt: Date.now(),
    };
    db.insert(settings).values(row).run();
  }
  let current: SettingsRow = row;
  return {
    current: () => current,
    save(next) {
      db.update(settings).set(next).where(eq(settings.id, 1)).run();
      current = next;
    },
  };
}
