import { bigint, text } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * The viewer seats of channels with `max_viewers`, counted across the instances of a cluster
 * (operator contract "Cluster mode") or the worker processes of one SQLite file (`server.workers`
 * > 1); a single process keeps its seats in memory. On PostgreSQL a seat is taken by one atomic
 * count-and-insert under a per-channel advisory lock; renewals arrive in batches; expired rows
 * are deleted.
 */
export const viewerSeats = twinTable(
  "viewer_seats",
  {
    channelId: text("channel_id").notNull(),
    leaseId: text("lease_id").notNull(),
    expiresAt: bigint("expires_at").notNull(),
    /** The instance that last took or renewed the seat (for operators; not a lock). */
    instance: text("instance").notNull(),
  },
  (t, k) => [
    k.primaryKey(t.channelId, t.leaseId),
    k.index("viewer_seats_expires_idx").on(t.expiresAt),
  ],
);
