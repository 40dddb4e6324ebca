import { bigint, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * The packaging lease of each DASH/TS channel (operator contract "Cluster mode": one instance
 * packages a channel at a time; docs/cluster.md "The lease", "Workers": one worker process of
 * a host on SQLite). `owner_id` is the owning process (random per start), `owner_url` its
 * `advertise_url`; `generation` grows with every acquisition; `expires_at` and `renewed_at`
 * are epoch ms by the database's clock (SQLite: the host's one clock). A released lease keeps
 * its row with `expires_at` 0, so the generation keeps counting.
 */
export const channelLeases = twinTable("channel_leases", {
  channelId: text("channel_id").primaryKey(),
  ownerId: text("owner_id").notNull(),
  ownerUrl: text("owner_url").notNull(),
  generation: bigint("generation").notNull(),
  expiresAt: bigint("expires_at").notNull(),
  renewedAt: bigint("renewed_at").notNull(),
});
