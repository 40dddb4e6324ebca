import type { Storage } from "../kernel/storage-types.js";
import { pgChannelLeases } from "./postgres.js";
import type { ChannelLeaseRepository } from "./repository.js";
import { singleInstanceLeases, sqliteChannelLeases } from "./sqlite.js";

/**
 * The packaging leases: PostgreSQL's table in cluster mode, SQLite's between the workers of
 * one host, the always-owning single process otherwise.
 */
export function channelLeasesFor(storage: Storage): ChannelLeaseRepository {
  if (storage.kind === "postgres") return pgChannelLeases(storage.pg.$client);
  return storage.shared !== undefined
    ? sqliteChannelLeases(storage.sqlite.$client)
    : singleInstanceLeases();
}
