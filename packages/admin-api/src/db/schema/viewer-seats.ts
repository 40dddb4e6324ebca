import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Workers (`server.workers` > 1): the viewer seats of channels with `max_viewers`, counted
 * across the worker processes, the twin of PostgreSQL's table. A single worker keeps its
 * seats in memory.
 */
export const viewerSeats = sqliteTable(
  "viewer_seats",
  {
    channelId: text("channel_id").notNull(),
    leaseId: text("lease_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
    instance: text("instance").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.leaseId] }),
    index("viewer_seats_expires_idx").on(t.expiresAt),
  ],
);
