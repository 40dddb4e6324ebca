import { GatewayError } from "@svc/core/errors";
import { PLAYBACK_KEY_SHAPE } from "../../credentials/secrets.js";
import {
  credentialBySecret,
  credentialBySecretFresh,
  credentialRefusal,
} from "../credentials/presented-secret.js";
import type { PlaybackKeyRecord, PlaybackKeyStore } from "./key-store.js";

export type PlaybackKeyCheck =
  | { readonly ok: true; readonly key: PlaybackKeyRecord }
  | { readonly ok: false; readonly key: PlaybackKeyRecord | undefined };

/**
 * Spec "Playback" 5: looks the key up by the SHA-256 digest of the path segment.
 * Invalid, disabled, revoked and expired keys all fail the same way; `key` is set
 * when the key exists, so the use can still be logged against it.
 */
export function checkPlaybackKey(
  keys: PlaybackKeyStore,
  presented: string,
  now = Date.now(),
): PlaybackKeyCheck {
  return keyCheck(credentialBySecret(keys, PLAYBACK_KEY_SHAPE, presented), now);
}

/** {@link checkPlaybackKey}, after `catchUp` when no key has the secret ({@link credentialBySecretFresh}). */
export async function checkPlaybackKeyFresh(
  keys: PlaybackKeyStore,
  presented: string,
  catchUp: (() => Promise<void>) | undefined,
): Promise<PlaybackKeyCheck> {
  const key = await credentialBySecretFresh(keys, PLAYBACK_KEY_SHAPE, presented, catchUp);
  return keyCheck(key, Date.now());
}

function keyCheck(key: PlaybackKeyRecord | undefined, now: number): PlaybackKeyCheck {
  return key !== undefined && credentialRefusal(key, now) === null
    ? { ok: true, key }
    : { ok: false, key };
}

/** 401 for any failed check (one message: the reason is not disclosed to the holder). */
export function unauthorizedKey(): GatewayError {
  return new GatewayError("unauthorized", "invalid, revoked or expired playback key");
}

/** 403 when a valid key does not cover the channel. */
export function assertKeyCoversChannel(key: PlaybackKeyRecord, channelId: string): void {
  if (key.channelIds.length > 0 && !key.channelIds.includes(channelId)) {
    throw new GatewayError("forbidden", "channel not covered by this playback key");
  }
}
