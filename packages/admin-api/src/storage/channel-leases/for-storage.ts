import type { Storage } from "../kernel/storage-types.js";
import { pgChannelLeases } from "./postgres.js";
import type { ChannelLeaseRepository } from "./repository.js";
import { singleInstanceLeases } from "./sqlite.js";

/** The packaging leases: PostgreSQL's table in cluster mode, the always-owning single instance on SQLite. */
export function channelLeasesFor(storage: Storage): ChannelLeaseRepository {
  return storage.kind === "postgres" ? pgChannelLeases(storage.pg.$client) : singleInstanceLeases();
}
