import { GatewayError } from "@svc/core/errors";
import {
  newPlaybackKeyPlaintext,
  newXtreamPassword,
  opaqueId,
  PLAYBACK_KEY_PREFIX_LENGTH,
  sha256Hex,
} from "../../credentials/secrets.js";
import { SHOWN_ONCE_WARNING } from "../api-tokens/token-record.js";
import type { ChannelStore } from "../channels/channel-store.js";
import {
  type CredentialKind,
  credentialToChange,
  deleteCredential,
  newCredentialFields,
  revokeCredential,
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
  /** Extensions "Xtream Codes output": the key's Xtream login name (unique), when it has one. */
  readonly xtreamUsername?: string | undefined;
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
  const xtreamUsername = input.xtreamUsername ?? null;
  if (xtreamUsername !== null) assertXtreamUsernameFree(keys, xtreamUsername);
  const xtreamPassword = xtreamUsername === null ? null : newXtreamPassword();
  const plaintext = newPlaybackKeyPlaintext();
  const now = Date.now();
  const record: PlaybackKeyRecord = {
    id: opaqueId("pk"),
    ...newCredentialFields(plaintext, PLAYBACK_KEY_PREFIX_LENGTH, input, now),
    channelIds: [...new Set(input.channelIds)],
    maxConnections: input.maxConnections ?? null,
    xtreamUsername,
    xtreamPasswordDigest: xtreamPassword === null ? null : sha256Hex(xtreamPassword),
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
    ...(xtreamPassword === null
      ? {}
      : { xtream_username: xtreamUsername, xtream_password: xtreamPassword }),
    warning: SHOWN_ONCE_WARNING,
  };
}

/** 409 when another key already has this Xtream username (the column is unique too). */
function assertXtreamUsernameFree(keys: PlaybackKeyStore, username: string): void {
  if (keys.byName(username) !== undefined)
    throw new GatewayError("conflict", "xtream_username is taken by another playback key");
}

/**
 * `POST …/{id}/xtream-password` (extensions.md "Xtream Codes output"): a new Xtream password
 * for a key with an Xtream username, shown once; the old one stops working at once.
 */
export async function rotateXtreamPassword(
  keys: PlaybackKeyStore,
  id: string,
  ifMatch: string | undefined,
) {
  const key = credentialToChange(keys, PLAYBACK_KEY, id, ifMatch);
  if (key.xtreamUsername === null)
    throw new GatewayError("invalid_request", "this playback key has no xtream_username");
  if (key.revokedAt !== null) throw new GatewayError("conflict", "playback key is revoked");
  const password = newXtreamPassword();
  const next: PlaybackKeyRecord = {
    ...key,
    xtreamPasswordDigest: sha256Hex(password),
    revision: key.revision + 1,
  };
  await keys.replace(next, key.revision);
  return {
    id: key.id,
    xtream_username: key.xtreamUsername,
    xtream_password: password,
    revision: next.revision,
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
