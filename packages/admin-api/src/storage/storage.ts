import type { GatewayConfig } from "@svc/core/config";
import type { Logger } from "@svc/core/log";
import { openStateDatabase, type StateDatabase } from "../db/client.js";
import { closeChannelWriteThread } from "./channels/channel-write-thread.js";
import { gateWrites } from "./dialect/dialect.js";
import { type MirroredResource, NO_CHANGE_FEED } from "./kernel/change-feed.js";
import type { SqliteStorage, Storage } from "./kernel/storage-types.js";
import { createVersionFeed } from "./postgres/change-feed.js";
import { openPostgresStorage } from "./postgres/open.js";

export type {
  PostgresStorage,
  SqliteStorage,
  Storage,
  StorageKind,
} from "./kernel/storage-types.js";

/**
 * The push of the workers' change feed: `written` tells the other workers a resource
 * changed (the worker sends it through the primary); the returned feed's `notified` is
 * what they call when told.
 */
export interface WorkerPush {
  written(resource: MirroredResource): Promise<void> | void;
  /** Has every other worker write its queued usage records (audit, access log); resolves after. */
  usage(): Promise<void>;
  /** Runs `task` holding the workers' one write lock (every write to the file takes it). */
  exclusiveWrite<T>(task: () => Promise<T>): Promise<T>;
}

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
 * The SQLite file of `data_dir` as one of several worker processes (`server.workers` > 1):
 * every write keeps `state_versions`, and a change feed follows the other workers' writes:
 * pushed (`push`, then {@link SqliteStorage.notified}), polled every second, caught up
 * before authenticated requests (docs/cluster.md "Workers").
 */
export async function workerSqliteStorage(
  dataDir: string,
  push: WorkerPush,
  log?: Logger,
): Promise<SqliteStorage> {
  const state: StateDatabase = openStateDatabase(dataDir);
  // One writer among the workers at a time, waited for as a promise (connectionLock).
  gateWrites(state.db.$client, (task) => push.exclusiveWrite(task));
  const read = state.db.$client.prepare("SELECT resource, version FROM state_versions");
  const feed = createVersionFeed(
    async () =>
      new Map(
        (read.all() as { resource: string; version: number }[]).map((r) => [r.resource, r.version]),
      ),
    log === undefined ? {} : { log },
  );
  await feed.start();
  let closing: Promise<void> | undefined;
  return {
    kind: "sqlite",
    location: state.file,
    sqlite: state.db,
    feed,
    shared: { written: (resource) => push.written(resource) },
    notified: () => feed.notified(),
    close() {
      closing ??= (async () => {
        await feed.close();
        await closeChannelWriteThread(state.db.$client);
        state.close();
      })();
      return closing;
    },
  };
}

/**
 * Opens the state database the config names: SQLite in `data_dir` unless
 * `server.database_url` is set, then the shared PostgreSQL database. `push`: this process
 * is one of several workers on the SQLite file.
 */
export async function openStorage(
  config: GatewayConfig,
  log?: Logger,
  push?: WorkerPush,
): Promise<Storage> {
  if (config.server.database_url !== "")
    return openPostgresStorage(config.server.database_url, log);
  if (push !== undefined) return workerSqliteStorage(config.server.data_dir, push, log);
  return sqliteStorage(config.server.data_dir);
}
