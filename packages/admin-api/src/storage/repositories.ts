import { createPgGuideRepository } from "./guide/postgres.js";
import type { GuideRepository } from "./guide/repository.js";
import { createSqliteGuideRepository } from "./guide/sqlite.js";
import type { Storage, StorageKind } from "./storage.js";

/**
 * One repository per stored resource: the only code that knows which database
 * runs. Each has a SQLite implementation (`<resource>/sqlite.ts`) and a
 * PostgreSQL one (`<resource>/postgres.ts`) behind the same async interface
 * (`<resource>/repository.ts`); services and routes see only the interface.
 */
export interface Repositories {
  /** Which database the repositories write to. */
  readonly kind: StorageKind;
  readonly guide: GuideRepository;
}

/** Builds the repositories over the open storage. */
export function createRepositories(storage: Storage): Repositories {
  return {
    kind: storage.kind,
    guide:
      storage.kind === "sqlite"
        ? createSqliteGuideRepository(storage.sqlite!)
        : createPgGuideRepository(storage.pg!),
  };
}
