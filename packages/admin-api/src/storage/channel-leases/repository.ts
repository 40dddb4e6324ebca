/**
 * The packaging leases of DASH channels (operator contract "Cluster mode"). The
 * interface is the one playback declares for what it needs (`@svc/playback/cluster`);
 * PostgreSQL keeps the leases of a cluster (`postgres.ts`), the embedded SQLite build is
 * one instance and always owns (`sqlite.ts`).
 */
export type {
  AcquireOutcome,
  ChannelLease,
  ChannelLeaseStore as ChannelLeaseRepository,
  LeaseHolder,
  LeaseView,
} from "@svc/playback/cluster";
