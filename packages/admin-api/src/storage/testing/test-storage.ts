import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { generateDrizzleJson, generateMigration } from "drizzle-kit/api";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { PgStateDb } from "../../db/pg-client.js";
import * as pgSchema from "../../db/schema-pg/index.js";
import { type MirroredResource, NO_CHANGE_FEED } from "../change-feed.js";
import { createRepositories, type Repositories } from "../repositories.js";
import { type Storage, sqliteStorage } from "../storage.js";
import { startTestPostgres, type TestPostgres } from "./postgres-test-server.js";

/** A SQLite storage in a fresh temp dir, removed by `close()`. */
export function openTestSqliteStorage(): Storage {
  const dir = mkdtempSync(join(tmpdir(), "svc-storage-"));
  const storage = sqliteStorage(dir);
  return {
    ...storage,
    async close() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PostgreSQL storage on the empty database `url`, its tables created from `schema-pg`
 * by drizzle-kit (what the committed migrations of `openStorage` create). No change feed:
 * a test calls the stores' `reload()` itself.
 */
export async function openTestPostgresStorage(url: string): Promise<Storage> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const db = drizzle(pool, { schema: pgSchema }) as PgStateDb;
  const ddl = await generateMigration(generateDrizzleJson({}), generateDrizzleJson(pgSchema));
  for (const statement of ddl) await pool.query(statement);
  return {
    kind: "postgres",
    location: new URL(url).pathname,
    sqlite: undefined,
    pg: db,
    feed: NO_CHANGE_FEED,
    close: () => pool.end(),
  };
}

/** A second PostgreSQL storage on a database {@link openTestPostgresStorage} already set up: another instance. */
export function attachTestPostgresStorage(url: string): Storage {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    kind: "postgres",
    location: new URL(url).pathname,
    sqlite: undefined,
    pg: drizzle(pool, { schema: pgSchema }) as PgStateDb,
    feed: NO_CHANGE_FEED,
    close: () => pool.end(),
  };
}

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

/**
 * Registers `cases` once per storage kind: a suite on SQLite (a temp file) and one on
 * PostgreSQL (see `startTestPostgres`; skipped with the reason when there is none).
 * `open` gives each test its own fresh database.
 */
export async function describeEachStorage(
  title: string,
  cases: (open: () => Promise<OpenedStorage>, kind: Storage["kind"]) => void,
): Promise<void> {
  describe(`${title}: sqlite`, () => {
    cases(async () => {
      const storage = openTestSqliteStorage();
      const repos = createRepositories(storage);
      return {
        kind: "sqlite",
        storage,
        repos,
        other: createRepositories(storage),
        close: () => storage.close(),
      };
    }, "sqlite");
  });
  const started = await startTestPostgres(process.env);
  const skip = started.ok ? false : `PostgreSQL unavailable: ${started.reason}`;
  describe(`${title}: postgres`, { skip }, () => {
    let server: TestPostgres;
    before(() => {
      if (started.ok) server = started.server;
    });
    after(async () => {
      if (started.ok) await started.server.stop();
    });
    cases(async () => {
      const url = await server.createDatabase();
      const storage = await openTestPostgresStorage(url);
      const second = attachTestPostgresStorage(url);
      const db = storage.pg!;
      return {
        kind: "postgres",
        storage,
        repos: createRepositories(storage),
        other: createRepositories(second),
        version: async (resource) =>
          (
            await db
              .select({ version: pgSchema.stateVersions.version })
              .from(pgSchema.stateVersions)
              .where(eq(pgSchema.stateVersions.resource, resource))
          )[0]?.version ?? 0,
        async close() {
          await second.close();
          await storage.close();
        },
      };
    }, "postgres");
  });
}

/** `it` with a fresh storage from `open`, closed after the test whatever its outcome. */
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
