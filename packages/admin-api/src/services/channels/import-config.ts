import type { GatewayConfig } from "@svc/core/config";
import { eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { channels, stateMarkers } from "../../db/schema/index.js";
import { rowFromChannel } from "./stored-channel.js";

const MARKER = "config_channels_imported";

/**
 * Operator contract "Config file": the config file's `channels:` are imported
 * into the database on the first start only, when the database has no
 * channels. A marker row records that the import ran, so channels deleted later
 * do not come back on the next start. Returns how many were imported.
 */
export function importConfigChannels(db: StateDb, config: GatewayConfig): number {
  return db.transaction((tx) => {
    if (tx.select().from(stateMarkers).where(eq(stateMarkers.name, MARKER)).get() !== undefined)
      return 0;
    const now = Date.now();
    const empty = tx.select({ id: channels.id }).from(channels).limit(1).get() === undefined;
    let imported = 0;
    if (empty) {
      for (const c of config.channels) {
        tx.insert(channels)
          .values(
            rowFromChannel({
              ...c,
              revision: 1,
              egress_mode: "auto",
              egress_profile_id: null,
              updated_at: now,
            }),
          )
          .run();
        imported += 1;
      }
    }
    tx.insert(stateMarkers).values({ name: MARKER, setAt: now }).run();
    return imported;
  });
}
