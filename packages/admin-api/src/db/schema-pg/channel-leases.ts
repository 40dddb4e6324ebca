import { bigint, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/**
 * PostgreSQL only: the packaging lease of each DASH channel (operator contract "Cluster
 * mode": one instance packages a channel at a time). `owner_id` is the owning process
 * (random per start), `owner_url` its `advertise_url`; `generation` grows with every
 * acquisition; `expires_at` and `renewed_at` are epoch ms by the database's clock. A
 * released lease keeps its row with `expires_at` 0, so the generation keeps counting.
 */
export const channelLeases = pgTable("channel_leases", {
  channelId: text("channel_id").primaryKey(),
  ownerId: text("owner_id").notNull(),
  ownerUrl: text("owner_url").notNull(),
  generation: bigint("generation", { mode: "number" }).notNull(),
  expiresAt: epoch("expires_at").notNull(),
  renewedAt: epoch("renewed_at").notNull(),
});
