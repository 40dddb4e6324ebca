import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Workers (`server.workers` > 1): the packaging lease of each DASH/TS channel between the
 * worker processes of one host, the twin of PostgreSQL's table (docs/cluster.md "The lease",
 * "Workers"). Times are epoch ms of the host's one clock.
 */
export const channelLeases = sqliteTable("channel_leases", {
  channelId: text("channel_id").primaryKey(),
  ownerId: text("owner_id").notNull(),
  ownerUrl: text("owner_url").notNull(),
  generation: integer("generation").notNull(),
  expiresAt: integer("expires_at").notNull(),
  renewedAt: integer("renewed_at").notNull(),
});
