import { postgresChannelRepository } from "./channels/postgres.js";
import type { ChannelRepository } from "./channels/repository.js";
import { sqliteChannelRepository } from "./channels/sqlite.js";
import { postgresEgressRepository } from "./egress/postgres.js";
import type { EgressRepository } from "./egress/repository.js";
import { sqliteEgressRepository } from "./egress/sqlite.js";
import { postgresSettingsRepository } from "./settings/postgres.js";
import type { SettingsRepository } from "./settings/repository.js";
import { sqliteSettingsRepository } from "./settings/sqlite.js";
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
  readonly channels: ChannelRepository;
  readonly settings: SettingsRepository;
  readonly egress: EgressRepository;
}

/** Builds the repositories over the open storage. */
export function createRepositories(storage: Storage): Repositories {
  // Exactly one handle is set: `pg` when `kind` is "postgres", `sqlite` otherwise.
  const { pg, sqlite } = storage;
  return {
    kind: storage.kind,
    channels: pg ? postgresChannelRepository(pg) : sqliteChannelRepository(sqlite!),
    settings: pg ? postgresSettingsRepository(pg) : sqliteSettingsRepository(sqlite!),
    egress: pg ? postgresEgressRepository(pg) : sqliteEgressRepository(sqlite!),
  };
}
