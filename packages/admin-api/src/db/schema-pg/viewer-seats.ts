import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/**
 * PostgreSQL only: the viewer seats of channels with `max_viewers`, counted
 * across instances (operator contract "Cluster mode"). A seat is taken by one
 * atomic count-and-insert under a per-channel advisory lock; renewals arrive in
 * batches; expired rows are deleted. Embedded SQLite keeps seats in memory.
 */
export const viewerSeats = pgTable(
  "viewer_seats",
  {
    channelId: text("channel_id").notNull(),
    leaseId: text("lease_id").notNull(),
    expiresAt: epoch("expires_at").notNull(),
    /** The instance that last took or renewed the seat (for operators; not a lock). */
    instance: text("instance").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.leaseId] }),
    index("viewer_seats_expires_idx").on(t.expiresAt),
  ],
);
