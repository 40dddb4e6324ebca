import type { RateLimiter } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import { digestsEqual, sha256Hex } from "../../credentials/secrets.js";
import type { PlaybackKeyRecord, PlaybackKeyStore } from "../playback-keys/key-store.js";

export type XtreamLoginCheck =
  | { readonly ok: true; readonly key: PlaybackKeyRecord }
  | { readonly ok: false; readonly key: PlaybackKeyRecord | undefined };

/** Compared against when the username is unknown, so both failures cost one digest compare. */
const NO_DIGEST = sha256Hex("");

/**
 * Extensions "Xtream Codes output": the playback key whose `xtream_username` is `username`
 * and whose stored digest is the SHA-256 of `password` (compared in constant time). A
 * disabled, revoked or expired key fails like a wrong password; `key` is set when the
 * username names a key, so the attempt can be logged against it.
 */
export function checkXtreamLogin(
  keys: PlaybackKeyStore,
  username: string,
  password: string,
  now = Date.now(),
): XtreamLoginCheck {
  const key = username === "" ? undefined : keys.byName(username);
  const stored = key?.xtreamPasswordDigest ?? null;
  const matches = digestsEqual(stored ?? NO_DIGEST, sha256Hex(password)) && stored !== null;
  if (key === undefined || !matches) return { ok: false, key };
  if (!key.enabled || key.revokedAt !== null) return { ok: false, key };
  if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, key };
  return { ok: true, key };
}

/** Bounded memory of the blocked clients (the limiter bounds its own windows). */
const MAX_BLOCKED = 100_000;

/**
 * Wrong Xtream credentials limited per client IP like logins (spec "Limits": the login
 * limiter, its own counter key): each failure takes one attempt; a client over its quota
 * is refused (429) before its credentials are even looked at, so a guess past the quota
 * learns nothing, until its window ends.
 */
export function createXtreamLoginGuard(limiter: RateLimiter) {
  const blockedUntil = new Map<string, number>();
  const counterKey = (client: string) => `xtream\u0000${client}`;
  const tooMany = (sec: number) =>
    new GatewayError("too_many_requests", "too many failed Xtream logins; try again later", {
      headers: { "Retry-After": String(Math.max(1, sec)) },
    });
  return {
    /**
     * Throws 429 while `client` is blocked: here, or (workers sharing the limiter's
     * counter) by a failure another process counted past the quota.
     */
    assertAllowed(client: string, now = Date.now()): void {
      const until = blockedUntil.get(client);
      if (until !== undefined) {
        if (until > now) throw tooMany(Math.ceil((until - now) / 1000));
        blockedUntil.delete(client);
      }
      const shared = limiter.refusedForSec?.(counterKey(client), now) ?? 0;
      if (shared > 0) throw tooMany(shared);
    },
    /** Counts one failure of `client`; throws 429 when it went over the quota. */
    async failed(client: string, now = Date.now()): Promise<void> {
      const key = counterKey(client);
      if (await limiter.take(key, now)) return;
      const sec = limiter.retryAfterSec(key, now);
      if (blockedUntil.size >= MAX_BLOCKED) {
        for (const [k, t] of blockedUntil) if (t <= now) blockedUntil.delete(k);
        if (blockedUntil.size >= MAX_BLOCKED)
          blockedUntil.delete(blockedUntil.keys().next().value!);
      }
      blockedUntil.set(client, now + sec * 1000);
      throw tooMany(sec);
    },
  };
}

export type XtreamLoginGuard = ReturnType<typeof createXtreamLoginGuard>;
