import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrateStateDatabase } from "./migrate.js";
import * as schema from "./schema/index.js";

/** The drizzle handle; `$client` is the better-sqlite3 connection underneath. */
export type StateDb = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** The open state database: the drizzle handle and a way to close it. */
export interface StateDatabase {
  readonly db: StateDb;
  readonly file: string;
  /** Closes the connection (checkpointing the WAL); idempotent. */
  close(): void;
}

/** File name of the state database inside `server.data_dir`. */
export const STATE_DB_FILE = "state.db";

/**
 * Opens (creating when missing) `{data_dir}/state.db`: WAL journal, a busy
 * timeout so a concurrent reader never fails a write outright, foreign keys on,
 * `synchronous = FULL` so a committed transaction survives power loss, a
 * quick integrity check, then the committed drizzle migrations.
 */
export function openStateDatabase(dataDir: string): StateDatabase {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, STATE_DB_FILE);
  // Owner-only: the file holds password hashes and token digests. SQLite gives
  // its -wal and -shm files the database file's mode.
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = FULL");
  // A damaged file must stop the start, not be written over.
  const check = sqlite.pragma("quick_check", { simple: true });
  if (check !== "ok") {
    sqlite.close();
    throw new Error(`state database ${file} failed its integrity check: ${String(check)}`);
  }
  const db = drizzle(sqlite, { schema });
  migrateStateDatabase(db);
  let open = true;
  return {
    db,
    file,
    close() {
      if (!open) return;
      open = false;
      sqlite.close();
    },
  };
}
