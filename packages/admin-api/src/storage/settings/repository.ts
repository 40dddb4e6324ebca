import { GatewayError } from "@svc/core/errors";
import type { settings } from "../../db/schema/index.js";

/** The settings row (spec "Settings"); the table holds one, with id 1. */
export type SettingsRow = typeof settings.$inferSelect;

/**
 * The runtime settings' storage. A save is compare-and-set on the revision, so two
 * instances that read the same revision cannot both write over it.
 */
export interface SettingsRepository {
  /** The stored row; undefined before the first start stored one. */
  load(): Promise<SettingsRow | undefined>;
  /** The stored row, storing `initial` first when there is none (instances starting together store one). */
  loadOrCreate(initial: SettingsRow): Promise<SettingsRow>;
  /** Stores `next` while the stored revision is `next.revision - 1`; else a 409 and nothing stored. */
  save(next: SettingsRow): Promise<void>;
}

/** The conflict of a save whose revision another writer moved since it was read. */
export function staleSettings(): GatewayError {
  return new GatewayError(
    "conflict",
    "revision mismatch: the settings changed since they were read (another instance wrote them); reload and retry",
  );
}
