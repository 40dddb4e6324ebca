import { GatewayError } from "@svc/core/errors";
import { digestsEqual, PLAYBACK_KEY_SHAPE, sha256Hex } from "../../credentials/secrets.js";
import type { PlaybackKeyRecord, PlaybackKeyStore } from "./key-store.js";

export type PlaybackKeyCheck =
  | { readonly ok: true; readonly key: PlaybackKeyRecord }
  | { readonly ok: false; readonly key: PlaybackKeyRecord | undefined };

/**
 * Spec "Playback" 5: looks the key up by the SHA-256 digest of the path
 * segment (digest compared in constant time). Invalid, disabled, revoked and
 * expired keys all fail the same way; `key` is set when the key exists, so the
 * use can still be logged against it.
 */
export function checkPlaybackKey(
  keys: PlaybackKeyStore,
  presented: string,
  now = Date.now(),
): PlaybackKeyCheck {
  if (!PLAYBACK_KEY_SHAPE.test(presented)) return { ok: false, key: undefined };
  const digest = sha256Hex(presented);
  const key = keys.byDigest(digest);
  if (key === undefined || !digestsEqual(key.digest, digest)) return { ok: false, key: undefined };
  if (!key.enabled || key.revokedAt !== null) return { ok: false, key };
  if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, key };
  return { ok: true, key };
}

/**
 * {@link checkPlaybackKey}, and for a well-formed key no record has, once more after
 * `catchUp` (cluster mode: a key created on another instance a moment ago is known here once
 * the mirror caught up; `credential-catch-up.ts`).
 */
export async function checkPlaybackKeyFresh(
  keys: PlaybackKeyStore,
  presented: string,
  catchUp: (() => Promise<void>) | undefined,
): Promise<PlaybackKeyCheck> {
  const check = checkPlaybackKey(keys, presented);
  if (check.key !== undefined || catchUp === undefined || !PLAYBACK_KEY_SHAPE.test(presented))
    return check;
  await catchUp();
  return checkPlaybackKey(keys, presented);
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
