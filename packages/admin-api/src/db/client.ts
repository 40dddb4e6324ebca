import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { startWalCheckpointer } from "./checkpoint.js";
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

/** SQLite's default `wal_autocheckpoint`, restored if the checkpoint worker fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

/** File name of the state database inside `server.data_dir`. */
export const STATE_DB_FILE = "state.db";

/**
 * Opens (creating when missing) `{data_dir}/state.db`: WAL journal, a busy
 * timeout so a concurrent reader never fails a write outright, foreign keys on,
 * `synchronous = FULL` so a committed transaction survives power loss, a
 * quick integrity check, then the committed drizzle migrations. WAL
 * checkpoints run on a worker thread (see checkpoint.ts), not inside a COMMIT
 * on the event loop; closing truncates the WAL.
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
  sqlite.pragma("wal_autocheckpoint = 0");
  const checkpointer = startWalCheckpointer(file, () => {
    // No worker: SQLite's own checkpoint in the COMMIT keeps the WAL bounded.
    if (open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
  });
  return {
    db,
    file,
    close() {
      if (!open) return;
      open = false;
      checkpointer.stop();
      // The worker's connection may still be open, so this close may not be
      // the last one (which would checkpoint): copy and truncate the WAL here.
      try {
        sqlite.pragma("wal_checkpoint(TRUNCATE)");
      } finally {
        sqlite.close();
      }
    },
  };
}
