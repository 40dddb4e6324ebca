import type { StateDb } from "../../db/client.js";
import type { PgStateDb } from "../../db/pg-client.js";
import type { ChangeFeed } from "./change-feed.js";

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

/** The embedded SQLite file of `data_dir`: one instance, one writer. */
export interface SqliteStorage extends OpenStorage {
  readonly kind: "sqlite";
  readonly sqlite: StateDb;
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
