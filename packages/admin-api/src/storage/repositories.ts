import type { Storage } from "./storage.js";

/**
 * One repository per stored resource: the only code that knows which database
 * runs. Each has a SQLite implementation (`<resource>/sqlite.ts`) and a
 * PostgreSQL one (`<resource>/postgres.ts`) behind the same async interface
 * (`<resource>/repository.ts`); services and routes see only the interface.
 */
export interface Repositories {}

/** Builds the repositories over the open storage. */
export function createRepositories(storage: Storage): Repositories {
  void storage;
  return {};
}
