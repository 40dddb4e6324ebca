import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import * as pgSchema from "@svc/admin-api/schema-pg";
import type { MirroredResource } from "@svc/admin-api/storage/kernel/change-feed";
import { openPostgresStorage } from "@svc/admin-api/storage/postgres/open";
import { createRepositories, type Repositories } from "@svc/admin-api/storage/repositories";
import { type Storage, sqliteStorage } from "@svc/admin-api/storage/storage";
import { createDatabase, POSTGRES_MISSING } from "@svc/test-kits/private-postgres";
import { eq } from "drizzle-orm";

/**
 * Test support: runs the same cases over both storage kinds, each test on a fresh
 * database with the repositories of `createRepositories`; on PostgreSQL two instances,
 * each opened by `openPostgresStorage` (committed migrations under the lock, the change
 * feed running). Never part of the gateway.
 */

/** A fresh database of one kind with its repositories, for one test. */
export interface OpenedStorage {
  readonly kind: Storage["kind"];
  readonly storage: Storage;
  /** The second instance's storage (on SQLite the same one). */
  readonly second: Storage;
  readonly repos: Repositories;
  /** The same database through other repositories (on PostgreSQL another pool): a second instance. */
  readonly other: Repositories;
  /** PostgreSQL only: the `state_versions` count of a resource. */
  readonly version?: (resource: MirroredResource) => Promise<number>;
  close(): Promise<void>;
}

async function openSqlite(): Promise<OpenedStorage> {
  const dir = mkdtempSync(join(tmpdir(), "svc-storage-"));
  const storage = sqliteStorage(dir);
  return {
    kind: "sqlite",
    storage,
    second: storage,
    repos: createRepositories(storage),
    other: createRepositories(storage),
    async close() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Two instances on one fresh database, each opened like the gateway opens it (migrations, feed). */
async function openPostgres(): Promise<OpenedStorage> {
  const url = await createDatabase();
  if (url === undefined) throw new Error(String(POSTGRES_MISSING));
  const [storage, second] = await Promise.all([openPostgresStorage(url), openPostgresStorage(url)]);
  const db = storage.pg;
  const versions = pgSchema.stateVersions;
  return {
    kind: "postgres",
    storage,
    second,
    repos: createRepositories(storage),
    other: createRepositories(second),
    version: async (resource) =>
      (
        await db
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
 * A store the cases create is not registered with the feed unless a case does it.
 */
export function describeEachStorage(
  title: string,
  cases: (open: () => Promise<OpenedStorage>, kind: Storage["kind"]) => void,
): void {
  describe(`${title}: sqlite`, () => cases(openSqlite, "sqlite"));
  describe(`${title}: postgres`, { skip: POSTGRES_MISSING }, () => cases(openPostgres, "postgres"));
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
