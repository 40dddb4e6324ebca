import type { StateDb } from "../../db/client.js";
import type { PgStateDb } from "../../db/pg-client.js";
import * as sqliteTables from "../../db/schema/index.js";
import * as pgTables from "../../db/schema-pg/index.js";
import type * as twins from "../../db/tables/index.js";
import type { MirroredResource } from "../kernel/change-feed.js";
import { createSerialLock, type SerialLock } from "../kernel/serial-lock.js";
import type { SharedSqlite, Storage } from "../kernel/storage-types.js";
import { bumpVersion } from "../postgres/versions.js";

/** The tables both schemas hold, as the repositories see them (see {@link Dialect}). */
export type Tables = Pick<typeof pgTables, keyof typeof sqliteTables>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Agree<K extends keyof Tables> = Same<
  (typeof sqliteTables)[K]["$inferSelect"],
  Tables[K]["$inferSelect"]
> &
  ([Tables[K]["$inferInsert"]] extends [(typeof sqliteTables)[K]["$inferInsert"]] ? true : false);
type AllAgree<T extends true> = T;
/**
 * Fails to compile when a table's rows differ between the schemas: what makes
 * reading the SQLite tables through the PostgreSQL types below sound. Both are
 * built from one description (`db/tables`), whose column kinds read back the
 * same values on either database; this checks that they do.
 */
export type RowsAgree = AllAgree<{ [K in keyof Tables]: Agree<K> }[keyof Tables]>;
/** Fails to compile when either schema module leaves out a table of `db/tables`. */
export type SchemasComplete = AllAgree<
  | Same<keyof typeof sqliteTables, keyof typeof twins>
  | Same<keyof typeof pgTables, keyof typeof twins>
>;

/**
 * The drizzle handle the shared repositories write with: only the builders both
 * dialects have, always awaited (`await db.select()…`, `await tx.insert(…).returning()`).
 */
export type Db = Pick<PgStateDb, "select" | "selectDistinct" | "insert" | "update" | "delete">;

interface DialectBase {
  /** The handle, typed as PostgreSQL's; on SQLite it is better-sqlite3's, which runs each awaited statement synchronously. */
  readonly db: Db;
  readonly tables: Tables;
  /**
   * One transaction. PostgreSQL: drizzle's. SQLite: `BEGIN IMMEDIATE` … `COMMIT` on the one
   * connection, spanning the awaits, one at a time (not re-entrant), under the connection's
   * lock, which every other write of the process takes too (the usage logs, the guide's
   * programmes, the channel commit). A repository reports a lost compare-and-set by its
   * result, never by rolling back.
   */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * A write of a mirrored resource in one transaction; on PostgreSQL the resource's version
   * is bumped in it when `changed(result)` (default: always), so the other instances reload.
   */
  write<T>(
    resource: MirroredResource,
    work: (tx: Db) => Promise<T>,
    changed?: (result: T) => boolean,
  ): Promise<T>;
  /** Rows a statement without `returning` touched: `changes` (SQLite), `rowCount` (PostgreSQL). */
  affected(result: unknown): number;
  /** True when `err` (or the driver error drizzle wraps) is a unique constraint violation. */
  isUniqueViolation(err: unknown): boolean;
}

export interface SqliteDialect extends DialectBase {
  readonly kind: "sqlite";
  readonly sqlite: StateDb;
  /** The write lock ({@link connectionLock}): every write of the process takes it. */
  readonly exclusive: SerialLock;
  /** The connection's own lock, for a read that must not run inside another's transaction. */
  readonly readExclusive: SerialLock;
  /** Workers share the file: `write` bumps `state_versions` (see {@link sqliteDialect}). */
  readonly versioned: boolean;
}

export interface PostgresDialect extends DialectBase {
  readonly kind: "postgres";
  readonly pg: PgStateDb;
}

/**
 * The small difference between the two databases, so each repository is written once:
 * transactions (and the version bump of PostgreSQL's change feed), affected-row counts,
 * unique violations. The SQLite tables are handed out under the PostgreSQL tables' types:
 * {@link RowsAgree} proves their rows the same, and the shared repositories keep to the
 * builder methods both dialects have (the suites run every repository on both). Hot paths
 * that depend on one database's strengths (bulk inserts, the guide) take `sqlite` or `pg`.
 */
export type Dialect = SqliteDialect | PostgresDialect;

/** PostgreSQL's SQLSTATE for a unique violation; better-sqlite3's codes of the same. */
const UNIQUE_CODES = new Set(["23505", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; depth++) {
    if (UNIQUE_CODES.has(String((e as { code?: unknown }).code))) return true;
    e = e.cause;
  }
  return false;
}

const locks = new WeakMap<object, SerialLock>();
const gates = new WeakMap<object, SerialLock>();

/**
 * The connection's own lock: one task at a time on this better-sqlite3 connection, so none
 * runs inside another's transaction between its awaits. Reads take it alone
 * ({@link connectionLock} for writes).
 */
export function connectionReadLock(client: object): SerialLock {
  let lock = locks.get(client);
  if (lock === undefined) {
    lock = createSerialLock();
    locks.set(client, lock);
  }
  return lock;
}

/**
 * The lock every write of this process to the SQLite file takes: the connection's own lock
 * and, in a worker (`server.workers` > 1), the workers' write lock before it
 * ({@link gateWrites}). The channel commit holds SQLite's write lock on its writer thread
 * (`channels/sqlite-commit.ts`) and another worker's may hold it in its process: a write that
 * met it in SQLite would wait with the event loop stopped (better-sqlite3 is synchronous);
 * under this lock it waits as a promise.
 */
export function connectionLock(client: object): SerialLock {
  const local = connectionReadLock(client);
  return (task) => {
    const gate = gates.get(client);
    return gate === undefined ? local(task) : gate(() => local(task));
  };
}

/**
 * Makes every write of this connection ({@link connectionLock}) first take `gate`: the
 * workers' write lock, held by one worker at a time (`WorkerLink.exclusiveWrite`).
 */
export function gateWrites(client: object, gate: SerialLock): void {
  gates.set(client, gate);
}

/** SQLite's bump of a resource's version, in the write's transaction (workers only). */
const BUMP_SQLITE = `INSERT INTO state_versions (resource, version) VALUES (?, 1)
  ON CONFLICT (resource) DO UPDATE SET version = version + 1`;

/**
 * @param shared Workers (`server.workers` > 1): several processes write this file, so every
 *   write of a mirrored resource bumps its `state_versions` row in its own transaction and,
 *   once committed, `written` tells the other workers (docs/cluster.md "Workers"). Absent:
 *   one process, no versions kept (today's single-writer file).
 */
export function sqliteDialect(sqlite: StateDb, shared?: SharedSqlite): SqliteDialect {
  const client = sqlite.$client;
  const exclusive = connectionLock(client);
  const readExclusive = connectionReadLock(client);
  const begin = client.prepare("BEGIN IMMEDIATE");
  const commit = client.prepare("COMMIT");
  const rollback = client.prepare("ROLLBACK");
  // Workers only (the table is written only then): prepared once, not per write.
  const bump = shared === undefined ? undefined : client.prepare(BUMP_SQLITE);
  const db = sqlite as unknown as Db;
  const transaction = <T>(work: (tx: Db) => Promise<T>) =>
    exclusive(async () => {
      begin.run();
      try {
        const result = await work(db);
        commit.run();
        return result;
      } catch (err) {
        if (client.inTransaction) rollback.run();
        throw err;
      }
    });
  return {
    kind: "sqlite",
    sqlite,
    exclusive,
    readExclusive,
    versioned: shared !== undefined,
    db,
    tables: sqliteTables as unknown as Tables,
    transaction,
    write:
      shared === undefined
        ? // One writer: no other process to tell.
          (_resource, work) => transaction(work)
        : async (resource, work, changed = () => true) => {
            let bumped = false;
            const result = await transaction(async (tx) => {
              const r = await work(tx);
              if (changed(r)) {
                bump?.run(resource);
                bumped = true;
              }
              return r;
            });
            // The other workers catch up before the write is answered (docs/cluster.md "Workers").
            if (bumped) await shared.written(resource);
            return result;
          },
    affected: (result) => (result as { changes: number }).changes,
    isUniqueViolation,
  };
}

export function postgresDialect(pg: PgStateDb): PostgresDialect {
  return {
    kind: "postgres",
    pg,
    db: pg,
    tables: pgTables,
    transaction: (work) => pg.transaction(work),
    write: (resource, work, changed = () => true) =>
      pg.transaction(async (tx) => {
        const result = await work(tx);
        if (changed(result)) await bumpVersion(tx, resource);
        return result;
      }),
    affected: (result) => (result as { rowCount: number | null }).rowCount ?? 0,
    isUniqueViolation,
  };
}

/** The dialect of an open storage. */
export function dialectOf(storage: Storage): Dialect {
  return storage.kind === "postgres"
    ? postgresDialect(storage.pg)
    : sqliteDialect(storage.sqlite, storage.shared);
}

/** For `write`'s `changed`: the statement returned a row. */
export const wroteRows = (rows: readonly unknown[]): boolean => rows.length > 0;
