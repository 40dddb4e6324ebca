import { isoSeconds } from "@svc/core/auth";
import type {
  PlaybackKeyRow,
  PlaybackKeysRepository,
} from "../../storage/credentials/repository.js";
import { type CredentialMirror, createCredentialMirror } from "../credentials/credential-mirror.js";
import { isoOrNull } from "../credentials/render-time.js";

export type PlaybackKeyRecord = PlaybackKeyRow;

/** The playback key resource of the spec; never the plaintext. */
export function renderPlaybackKey(k: PlaybackKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    token_prefix: k.tokenPrefix,
    scope: renderScope(k),
    enabled: k.enabled,
    note: k.note,
    created_at: isoSeconds(new Date(k.createdAt)),
    last_used_at: isoOrNull(k.lastUsedAt),
    revoked_at: isoOrNull(k.revokedAt),
    expires_at: isoOrNull(k.expiresAt),
    max_connections: k.maxConnections,
    revision: k.revision,
    // Extensions "Xtream Codes output": the login name only, never the password or its digest.
    xtream_username: k.xtreamUsername,
  };
}

/** `{all: true, channel_ids: []}` or `{all: false, channel_ids: [...]}`. */
export function renderScope(k: PlaybackKeyRecord) {
  return { all: k.channelIds.length === 0, channel_ids: k.channelIds };
}

/** The channels a key may play: null for every channel (an empty scope). */
export function keyChannels(k: PlaybackKeyRecord): ReadonlySet<string> | null {
  return k.channelIds.length === 0 ? null : new Set(k.channelIds);
}

/**
 * Playback keys mirrored in memory (by id and by digest) over the state
 * database: the key gate's lookup on every `/p/` request is a map lookup,
 * never a query; another instance's write reloads the mirror.
 */
export type PlaybackKeyStore = CredentialMirror<PlaybackKeyRecord>;

export function createPlaybackKeyStore(repo: PlaybackKeysRepository): Promise<PlaybackKeyStore> {
  // Xtream logins look a key up by its `xtream_username` on every request.
  return createCredentialMirror(repo, "playback key", (k) => k.xtreamUsername);
}
