import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { PgStateDb } from "../db/pg-client.js";
import * as pgSchema from "../db/schema-pg/index.js";
import { type MirroredResource, NO_CHANGE_FEED } from "../storage/change-feed.js";
import { createRepositories, type Repositories } from "../storage/repositories.js";
import { type Storage, sqliteStorage } from "../storage/storage.js";
import { POSTGRES_ABSENT, type PrivatePostgres, startPrivatePostgres } from "./private-postgres.js";

/**
 * Test support: runs the same cases over both storage kinds, each test on a fresh
 * database with the repositories of `createRepositories`. Never part of the gateway.
 */

/** A fresh database of one kind with its repositories, for one test. */
export interface OpenedStorage {
  readonly kind: Storage["kind"];
  readonly storage: Storage;
  readonly repos: Repositories;
  /** The same database through other repositories (on PostgreSQL another pool): a second instance. */
  readonly other: Repositories;
  /** PostgreSQL only: the `state_versions` count of a resource. */
  readonly version?: (resource: MirroredResource) => Promise<number>;
  close(): Promise<void>;
}

/** A PostgreSQL storage over `db` without a change feed: the tests call `reload()` themselves. */
function postgresStorage(db: PgStateDb, close: () => Promise<void>): Storage {
  return {
    kind: "postgres",
    location: "private test server",
    sqlite: undefined,
    pg: db,
    feed: NO_CHANGE_FEED,
    close,
  };
}

async function openSqlite(): Promise<OpenedStorage> {
  const dir = mkdtempSync(join(tmpdir(), "svc-storage-"));
  const storage = sqliteStorage(dir);
  return {
    kind: "sqlite",
    storage,
    repos: createRepositories(storage),
    other: createRepositories(storage),
    async close() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(server: PrivatePostgres): Promise<OpenedStorage> {
  const database = await server.database();
  const storage = postgresStorage(database.db, database.close);
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const second = postgresStorage(drizzle(pool, { schema: pgSchema }) as PgStateDb, () =>
    pool.end(),
  );
  const versions = pgSchema.stateVersions;
  return {
    kind: "postgres",
    storage,
    repos: createRepositories(storage),
    other: createRepositories(second),
    version: async (resource) =>
      (
        await database.db
          .select({ version: versions.version })
          .from(versions)
          .where(eq(versions.resource, resource))
      )[0]?.version ?? 0,
    async close() {
      await second.close();
      await storage.close();
    },
  };
}

/**
 * Registers `cases` once per storage kind: a suite on SQLite (a temp file) and one on a
 * private PostgreSQL server (skipped with the reason when its binaries are absent).
 */
export function describeEachStorage(
  title: string,
  cases: (open: () => Promise<OpenedStorage>, kind: Storage["kind"]) => void,
): void {
  describe(`${title}: sqlite`, () => cases(openSqlite, "sqlite"));
  describe(`${title}: postgres`, { skip: POSTGRES_ABSENT }, () => {
    let server: PrivatePostgres | undefined;
    before(async () => {
      server = await startPrivatePostgres();
    });
    after(async () => {
      await server?.stop();
    });
    cases(() => openPostgres(server!), "postgres");
  });
}

/** A test body with a fresh storage from `open`, closed after it whatever the outcome. */
export function withStorage(
  open: () => Promise<OpenedStorage>,
  body: (o: OpenedStorage) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const o = await open();
    try {
      await body(o);
    } finally {
      await o.close();
    }
  };
}
