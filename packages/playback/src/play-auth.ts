import type { AccountDirectory, SessionClaims, SessionTokens } from "@svc/core/auth";
import { CLOCK_SKEW_SEC, isApiTokenShape, playbackCredential } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";

/** Who may play what, after the credential of a `/v1/play/` or playlist request is checked. */
export interface PlaybackGrant {
  /** The credential to carry into every generated URL (`?token=`), or undefined when open. */
  readonly token: string | undefined;
  /** Channel ids this grant covers; null means every channel. */
  readonly channels: ReadonlySet<string> | null;
  readonly claims: SessionClaims | undefined;
}

export interface PlaybackAuthorizer {
  /**
   * Checks the credential of a request (spec "Playback" 4): `?token=` over
   * `Authorization: Bearer`, a session or preview JWT, bound to the account's
   * current credential revision. Open when `play_require_auth` is off.
   * Throws 401 for a missing or invalid credential.
   */
  authorize(
    queryToken: string | undefined,
    authorization: string | undefined,
  ): Promise<PlaybackGrant>;
}

const OPEN: PlaybackGrant = Object.freeze({ token: undefined, channels: null, claims: undefined });

/** Verified tokens remembered, at most this many and this long (never past their `exp`). */
const VERIFIED_CACHE_ENTRIES = 10_000;
const VERIFIED_CACHE_MS = 60_000;

/**
 * Remembers successful JWT verifications: a player polls its playlist every few
 * seconds with the same token, and an Ed25519 verification costs far more than
 * the rest of a cached playlist answer. Failures are never cached; the account's
 * credential revision is still checked on every request by the caller.
 */
function cachedVerifier(
  tokens: SessionTokens,
): (token: string) => Promise<SessionClaims | undefined> {
  const cache = new Map<string, { claims: SessionClaims; until: number }>();
  return async (token) => {
    const now = Date.now();
    const hit = cache.get(token);
    if (hit !== undefined) {
      if (hit.until > now) return hit.claims;
      cache.delete(token);
    }
    const claims = await tokens.verify(token);
    if (claims === undefined) return undefined;
    if (cache.size >= VERIFIED_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(token, {
      claims,
      until: Math.min(now + VERIFIED_CACHE_MS, claims.expiresAt.getTime() + CLOCK_SKEW_SEC * 1000),
    });
    return claims;
  };
}

export function createPlaybackAuthorizer(deps: {
  requireAuth: boolean;
  tokens: SessionTokens;
  accounts: AccountDirectory;
}): PlaybackAuthorizer {
  const verify = cachedVerifier(deps.tokens);
  return {
    async authorize(queryToken, authorization) {
      if (!deps.requireAuth) return OPEN;
      const token = playbackCredential(queryToken, authorization);
      // Spec "Playlist": an admin API token is not a playback credential.
      if (token === undefined || isApiTokenShape(token)) {
        throw new GatewayError("unauthorized", "a session or preview token is required");
      }
      const claims = await verify(token);
      // Bound to the stable account key: a token never follows its username to another account.
      const account =
        claims === undefined ? undefined : deps.accounts.byConfigUsername(claims.accountKey);
      if (
        claims === undefined ||
        account === undefined ||
        account.authRevision !== claims.authRevision
      ) {
        throw new GatewayError("unauthorized", "invalid or expired token");
      }
      // The account's current restriction wins over what the token was issued with.
      const restriction =
        claims.kind === "preview"
          ? claims.channels
          : account.role === "admin" || account.channelIds.length === 0
            ? null
            : account.channelIds;
      return { token, channels: restriction === null ? null : new Set(restriction), claims };
    },
  };
}

/** Throws 403 when the grant does not cover the channel. */
export function assertChannelGranted(grant: PlaybackGrant, channelId: string): void {
  if (grant.channels !== null && !grant.channels.has(channelId)) {
    throw new GatewayError("forbidden", "channel not allowed for this credential");
  }
}
