import type { StateDb } from "../../db/client.js";
import type { PgStateDb } from "../../db/pg-client.js";
import type { ChangeFeed, MirroredResource } from "./change-feed.js";

/**
 * Which database holds the full build's state: the embedded SQLite file in
 * `data_dir` (the default), or PostgreSQL when `server.database_url` is set
 * (operator contract "Cluster mode").
 */
export type StorageKind = "sqlite" | "postgres";

interface OpenStorage {
  /** Where the state lives, for logs: the SQLite file, or the PostgreSQL URL without its password. */
  readonly location: string;
  /** Reloads of in-memory mirrors when another instance wrote (a no-op on SQLite). */
  readonly feed: ChangeFeed;
  /** Closes the database (checkpointing SQLite's WAL); idempotent. */
  close(): Promise<void>;
}

/**
 * Workers (`server.workers` > 1): the SQLite file is written by several processes of one
 * host. `written` is called after a write of a mirrored resource committed (its version
 * bumped in the transaction): the worker tells the others through the primary, and
 * answers the write once they caught up.
 */
export interface SharedSqlite {
  /** Resolves once the other workers caught up (the write is answered after it). */
  written(resource: MirroredResource): Promise<void> | void;
}

/** The embedded SQLite file of `data_dir`: one process, or the workers of one host. */
export interface SqliteStorage extends OpenStorage {
  readonly kind: "sqlite";
  readonly sqlite: StateDb;
  /** Set when several worker processes share the file (versions kept, change feed running). */
  readonly shared?: SharedSqlite;
  /** Workers: another worker committed a write (told through the primary): catch up now. */
  readonly notified?: () => void;
  readonly pg?: never;
}

/** The shared PostgreSQL database of a cluster. */
export interface PostgresStorage extends OpenStorage {
  readonly kind: "postgres";
  readonly pg: PgStateDb;
  readonly sqlite?: never;
}

/**
 * The open state database, whichever kind it is: `kind` says which handle it
 * holds. Services never touch it: they get repositories
 * (`storage/repositories.ts`) built from it, so the same service code runs on
 * both kinds.
 */
export type Storage = SqliteStorage | PostgresStorage;
