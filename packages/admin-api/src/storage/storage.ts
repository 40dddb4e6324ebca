import type { GatewayConfig } from "@svc/core/config";
import type { Logger } from "@svc/core/log";
import { openStateDatabase, type StateDatabase } from "../db/client.js";
import { closeChannelWriteThread } from "./channels/channel-write-thread.js";
import { NO_CHANGE_FEED } from "./kernel/change-feed.js";
import type { SqliteStorage, Storage } from "./kernel/storage-types.js";
import { openPostgresStorage } from "./postgres/open.js";

export type {
  PostgresStorage,
  SqliteStorage,
  Storage,
  StorageKind,
} from "./kernel/storage-types.js";

/** Opens the embedded SQLite state database of `data_dir`, migrations applied. */
export function sqliteStorage(dataDir: string): SqliteStorage {
  const state: StateDatabase = openStateDatabase(dataDir);
  return {
    kind: "sqlite",
    location: state.file,
    sqlite: state.db,
    feed: NO_CHANGE_FEED,
    async close() {
      // The writer thread's connection first: the last one to close checkpoints the WAL.
      await closeChannelWriteThread(state.db.$client);
      state.close();
    },
  };
}

/**
 * Opens the state database the config names: SQLite in `data_dir` unless
 * `server.database_url` is set, then the shared PostgreSQL database.
 */
export async function openStorage(config: GatewayConfig, log?: Logger): Promise<Storage> {
  if (config.server.database_url !== "")
    return openPostgresStorage(config.server.database_url, log);
  return sqliteStorage(config.server.data_dir);
}
