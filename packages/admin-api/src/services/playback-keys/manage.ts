import { GatewayError } from "@svc/core/errors";
import {
  newPlaybackKeyPlaintext,
  opaqueId,
  PLAYBACK_KEY_PREFIX_LENGTH,
} from "../../credentials/secrets.js";
import { SHOWN_ONCE_WARNING } from "../api-tokens/token-record.js";
import type { ChannelStore } from "../channels/channel-store.js";
import {
  type CredentialKind,
  deleteCredential,
  revokeCredential,
  storedSecret,
} from "../credentials/credential-actions.js";
import { type PlaybackKeyRecord, type PlaybackKeyStore, renderPlaybackKey } from "./key-store.js";

export interface NewPlaybackKey {
  readonly name: string;
  readonly note: string;
  /** Empty: every channel. */
  readonly channelIds: readonly string[];
  /** 0: no expiry. */
  readonly expiresInSec: number;
  /** Extensions "Connection limits"; null: unlimited. */
  readonly maxConnections?: number | null;
}

/** `/p/{token}/playlist.m3u` under `base`. */
export function keyPlaylistUrl(base: string, plaintext: string): string {
  return `${base}/p/${plaintext}/playlist.m3u`;
}

/** Creates a key (`v1` + 126 base62, shown once); unknown channel ids are a 400. */
export async function createPlaybackKey(
  keys: PlaybackKeyStore,
  channels: ChannelStore,
  base: string,
  input: NewPlaybackKey,
) {
  for (const id of input.channelIds) {
    if (channels.get(id) === undefined)
      throw new GatewayError("invalid_request", `channel_ids: unknown channel "${id}"`);
  }
  const plaintext = newPlaybackKeyPlaintext();
  const now = Date.now();
  const record: PlaybackKeyRecord = {
    id: opaqueId("pk"),
    name: input.name,
    note: input.note,
    ...storedSecret(plaintext, PLAYBACK_KEY_PREFIX_LENGTH),
    channelIds: [...new Set(input.channelIds)],
    enabled: true,
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: input.expiresInSec === 0 ? null : now + input.expiresInSec * 1000,
    maxConnections: input.maxConnections ?? null,
    revision: 1,
  };
  await keys.insert(record);
  const view = renderPlaybackKey(record);
  return {
    id: view.id,
    name: view.name,
    token: plaintext,
    token_prefix: view.token_prefix,
    scope: view.scope,
    playlist_url: keyPlaylistUrl(base, plaintext),
    created_at: view.created_at,
    expires_at: view.expires_at,
    max_connections: view.max_connections,
    warning: SHOWN_ONCE_WARNING,
  };
}

/** A playback key's `If-Match` is checked when it is sent, not required. */
const PLAYBACK_KEY: CredentialKind = { what: "playback key", ifMatchRequired: false };

/** `POST …/revoke`: use returns 401 afterwards. */
export const revokePlaybackKey = (
  keys: PlaybackKeyStore,
  id: string,
  ifMatch: string | undefined,
) => revokeCredential(keys, PLAYBACK_KEY, id, ifMatch);

export async function deletePlaybackKey(
  keys: PlaybackKeyStore,
  id: string,
  ifMatch: string | undefined,
) {
  await deleteCredential(keys, PLAYBACK_KEY, id, ifMatch);
  return { ok: true as const };
}
