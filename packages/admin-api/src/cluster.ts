/** Entry `@svc/admin-api/cluster`: the packaging leases of cluster mode over the state database. */

export { channelLeasesFor } from "./storage/channel-leases/for-storage.js";
export { pgChannelLeases } from "./storage/channel-leases/postgres.js";
export type { ChannelLeaseRepository } from "./storage/channel-leases/repository.js";
export { singleInstanceLeases } from "./storage/channel-leases/sqlite.js";
