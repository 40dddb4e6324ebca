import type { Account, AccountDirectory, SessionClaims, SessionTokens } from "@svc/core/auth";
import { CLOCK_SKEW_SEC, isApiTokenShape, playbackCredential } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";

/** Who may play what, after the credential of a `/v1/play/` or playlist request is checked. */
export interface PlaybackGrant {
  /** The credential to carry into every generated URL (`?token=`), or undefined when open. */
  readonly token: string | undefined;
  /** `token=…` (percent-encoded) as generated URLs carry it, or "" when open. */
  readonly tokenQuery: string;
  /** Channel ids this grant covers; null means every channel. */
  readonly channels: ReadonlySet<string> | null;
  readonly claims: SessionClaims | undefined;
  /** No credential was needed (`play_require_auth: false`): what it reaches is anyone's. */
  readonly open: boolean;
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
  /**
   * The grant {@link authorize} would give, without waiting: only for a credential whose
   * verification is already remembered (or no credential needed), with the same checks
   * (revision, `exp`, scope). Undefined for anything else — an unknown token, a token
   * still being verified, any failure — which `authorize` then answers (or rejects).
   */
  authorizeCached(
    queryToken: string | undefined,
    authorization: string | undefined,
  ): PlaybackGrant | undefined;
}

const OPEN: PlaybackGrant = Object.freeze({
  token: undefined,
  tokenQuery: "",
  channels: null,
  claims: undefined,
  open: true,
});

/** Verified tokens remembered at most (oldest dropped first); each until its own `exp`. */
const VERIFIED_CACHE_ENTRIES = 10_000;

/**
 * Remembers JWT verifications by token string until the token's `exp` (plus the spec's
 * skew, which the verification itself allows): a player polls its playlist every few
 * seconds with the same token, and jose's Ed25519 verification goes through WebCrypto
 * and the libuv thread pool, where a crowd of new viewers queued behind itself
 * (issue 13 item 1, docs/performance.md). A verification in flight is shared by every
 * request carrying the same token. Failures are never remembered; the caller still
 * checks the account's credential revision on every request, and `exp` is checked here
 * on every hit.
 */
interface VerifiedEntry {
  readonly claims: Promise<SessionClaims | undefined>;
  /** The verified claims, once the verification succeeded. */
  settled?: SessionClaims;
  /** `token=…` of this token, encoded once for every request that carries it. */
  readonly tokenQuery: string;
  until: number;
  /**
   * The grant last built for this token, with the account record it was checked against:
   * reused while the directory hands out that same record (a reload or credential change
   * makes a new one), so a poll does not build a grant and its channel set again.
   */
  grant?: { readonly account: Account; readonly value: PlaybackGrant };
}

function cachedVerifier(tokens: SessionTokens): {
  verify(token: string): Promise<VerifiedEntry>;
  /** The remembered verification of `token` when it succeeded already and has not expired. */
  known(token: string): VerifiedEntry | undefined;
} {
  const cache = new Map<string, VerifiedEntry>();
  return {
    verify(token) {
      const now = Date.now();
      const hit = cache.get(token);
      if (hit !== undefined) {
        if (hit.until > now) return hit.claims.then(() => hit);
        cache.delete(token);
      }
      const claims = tokens.verify(token);
      if (cache.size >= VERIFIED_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
      // Until verified, the entry lives only as long as a verification can take.
      const entry: VerifiedEntry = {
        claims,
        until: now + 60_000,
        tokenQuery: `token=${encodeURIComponent(token)}`,
      };
      cache.set(token, entry);
      claims.then(
        (c) => {
          if (c === undefined) {
            if (cache.get(token) === entry) cache.delete(token);
            return;
          }
          // Set even when the entry was dropped meanwhile: the requests awaiting it use it.
          entry.settled = c;
          entry.until = c.expiresAt.getTime() + CLOCK_SKEW_SEC * 1000;
        },
        () => cache.delete(token),
      );
      return claims.then(() => entry);
    },
    known(token) {
      const hit = cache.get(token);
      return hit?.settled !== undefined && hit.until > Date.now() ? hit : undefined;
    },
  };
}

export function createPlaybackAuthorizer(deps: {
  requireAuth: boolean;
  tokens: SessionTokens;
  accounts: AccountDirectory;
}): PlaybackAuthorizer {
  const verifier = cachedVerifier(deps.tokens);
  /** The request's token, or undefined when it has none a playback request may carry. */
  const credentialOf = (queryToken: string | undefined, authorization: string | undefined) => {
    const token = playbackCredential(queryToken, authorization);
    // Spec "Playlist": an admin API token is not a playback credential.
    return token === undefined || isApiTokenShape(token) ? undefined : token;
  };
  /** The grant of verified `claims`, or undefined when the account no longer backs them. */
  const grantOf = (token: string, verified: VerifiedEntry): PlaybackGrant | undefined => {
    const claims = verified.settled;
    if (claims === undefined) return undefined;
    // Bound to the stable account key: a token never follows its username to another account.
    const account = deps.accounts.byConfigUsername(claims.accountKey);
    if (account === undefined || account.authRevision !== claims.authRevision) return undefined;
    if (verified.grant?.account === account) return verified.grant.value;
    // The account's current restriction wins over what the token was issued with.
    const restriction =
      claims.kind === "preview"
        ? claims.channels
        : account.role === "admin" || account.channelIds.length === 0
          ? null
          : account.channelIds;
    const value: PlaybackGrant = {
      token,
      tokenQuery: verified.tokenQuery,
      channels: restriction === null ? null : new Set(restriction),
      claims,
      open: false,
    };
    verified.grant = { account, value };
    return value;
  };
  return {
    async authorize(queryToken, authorization) {
      if (!deps.requireAuth) return OPEN;
      const token = credentialOf(queryToken, authorization);
      if (token === undefined)
        throw new GatewayError("unauthorized", "a session or preview token is required");
      const grant = grantOf(token, await verifier.verify(token));
      if (grant === undefined) throw new GatewayError("unauthorized", "invalid or expired token");
      return grant;
    },
    authorizeCached(queryToken, authorization) {
      if (!deps.requireAuth) return OPEN;
      const token = credentialOf(queryToken, authorization);
      const verified = token === undefined ? undefined : verifier.known(token);
      return verified === undefined ? undefined : grantOf(token!, verified);
    },
  };
}

/** Throws 403 when the grant does not cover the channel. */
export function assertChannelGranted(grant: PlaybackGrant, channelId: string): void {
  if (grant.channels !== null && !grant.channels.has(channelId)) {
    throw new GatewayError("forbidden", "channel not allowed for this credential");
  }
}
