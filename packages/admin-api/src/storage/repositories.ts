import { postgresAccountsRepository } from "./accounts/postgres.js";
import type { AccountsRepository } from "./accounts/repository.js";
import { sqliteAccountsRepository } from "./accounts/sqlite.js";
import { postgresApiTokensRepository } from "./api-tokens/postgres.js";
import type { ApiTokensRepository } from "./api-tokens/repository.js";
import { sqliteApiTokensRepository } from "./api-tokens/sqlite.js";
import { channelLeasesFor } from "./channel-leases/for-storage.js";
import type { ChannelLeaseRepository } from "./channel-leases/repository.js";
import { postgresChannelRepository } from "./channels/postgres.js";
import type { ChannelRepository } from "./channels/repository.js";
import { sqliteChannelRepository } from "./channels/sqlite.js";
import { postgresEgressRepository } from "./egress/postgres.js";
import type { EgressRepository } from "./egress/repository.js";
import { sqliteEgressRepository } from "./egress/sqlite.js";
import { createPgGuideRepository } from "./guide/postgres.js";
import type { GuideRepository } from "./guide/repository.js";
import { createSqliteGuideRepository } from "./guide/sqlite.js";
import { postgresPlaybackKeysRepository } from "./playback-keys/postgres.js";
import type { PlaybackKeysRepository } from "./playback-keys/repository.js";
import { sqlitePlaybackKeysRepository } from "./playback-keys/sqlite.js";
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
  /** Which instance packages each DASH channel (cluster mode). */
  readonly channelLeases: ChannelLeaseRepository;
  /** Credential overrides of the configured accounts. */
  readonly accounts: AccountsRepository;
  /** Admin API tokens and their audit log. */
  readonly apiTokens: ApiTokensRepository;
  /** Playback keys and their access log. */
  readonly playbackKeys: PlaybackKeysRepository;
  /** The channel catalog (and the config file's one-time import). */
  readonly channels: ChannelRepository;
  /** The runtime settings row. */
  readonly settings: SettingsRepository;
  /** The stored egress routing document. */
  readonly egress: EgressRepository;
  /** Guide sources, refresh states, guide channels and programme generations. */
  readonly guide: GuideRepository;
}

/** Builds the repositories over the open storage. */
export function createRepositories(storage: Storage): Repositories {
  const pg = storage.kind === "postgres" ? storage.pg! : undefined;
  const sqlite = storage.kind === "sqlite" ? storage.sqlite! : undefined;
  return {
    kind: storage.kind,
    accounts: pg ? postgresAccountsRepository(pg) : sqliteAccountsRepository(sqlite!),
    apiTokens: pg ? postgresApiTokensRepository(pg) : sqliteApiTokensRepository(sqlite!),
    playbackKeys: pg ? postgresPlaybackKeysRepository(pg) : sqlitePlaybackKeysRepository(sqlite!),
    channelLeases: channelLeasesFor(storage),
    channels: pg ? postgresChannelRepository(pg) : sqliteChannelRepository(sqlite!),
    settings: pg ? postgresSettingsRepository(pg) : sqliteSettingsRepository(sqlite!),
    egress: pg ? postgresEgressRepository(pg) : sqliteEgressRepository(sqlite!),
    guide: pg ? createPgGuideRepository(pg) : createSqliteGuideRepository(sqlite!),
  };
}
