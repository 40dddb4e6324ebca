import { type AccountsRepository, accountsRepository } from "./accounts/repository.js";
import { channelLeasesFor } from "./channel-leases/for-storage.js";
import type { ChannelLeaseRepository } from "./channel-leases/repository.js";
import { channelRepository } from "./channels/channel-repository.js";
import type { ChannelRepository } from "./channels/repository.js";
import {
  type ApiTokensRepository,
  apiTokensRepository,
  type PlaybackKeysRepository,
  playbackKeysRepository,
} from "./credentials/repository.js";
import { dialectOf } from "./dialect/dialect.js";
import { createGuideRepository } from "./guide/guide-repository.js";
import type { GuideRepository } from "./guide/repository.js";
import { type M3uSourceRepository, m3uSourceRepository } from "./m3u-sources/repository.js";
import {
  type EgressRepository,
  egressRepository,
  type SettingsRepository,
  settingsRepository,
} from "./single-row-repository.js";
import type { Storage, StorageKind } from "./storage.js";

/**
 * One repository per stored resource: the only code that knows which database
 * runs. Each is written once over the dialect adapter (`dialect/dialect.ts`); the hot
 * paths that play to one database's strengths (channel and usage-log bulk
 * writes, the guide) are written per database behind the same interface.
 * Services and routes see only the interfaces.
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
  /** M3U provider sources and their sync states (extension `m3u_sources`). */
  readonly m3uSources: M3uSourceRepository;
}

/** Builds the repositories over the open storage. */
export function createRepositories(storage: Storage): Repositories {
  const d = dialectOf(storage);
  return {
    kind: d.kind,
    accounts: accountsRepository(d),
    apiTokens: apiTokensRepository(d),
    playbackKeys: playbackKeysRepository(d),
    channelLeases: channelLeasesFor(storage),
    channels: channelRepository(d),
    settings: settingsRepository(d),
    egress: egressRepository(d),
    guide: createGuideRepository(d),
    m3uSources: m3uSourceRepository(d),
  };
}
