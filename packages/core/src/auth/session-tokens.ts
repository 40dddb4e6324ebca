import { randomUUID } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { SigningKeys } from "./signing-keys.js";

/** Spec "Session signing" 4: time claims are enforced with 30 seconds of skew. */
export const CLOCK_SKEW_SEC = 30;
/** Spec "Login sessions": preview tokens last 5 minutes. */
export const PREVIEW_TTL_SEC = 300;

/** What a verified session or preview JWT says about its holder. */
export interface SessionClaims {
  readonly kind: "session" | "preview";
  readonly username: string;
  /**
   * The stable account key (the account's username in the config file), claim
   * `acct`. Verification looks the account up by it, never by `sub`: usernames
   * move with renames, and another account may later hold an old one.
   */
  readonly accountKey: string;
  readonly role: string;
  /** Channel restriction: null means every channel. A preview covers exactly one. */
  readonly channels: readonly string[] | null;
  /** The account's credential revision when the token was issued. */
  readonly authRevision: number;
  readonly jti: string;
  readonly expiresAt: Date;
}

export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: Date;
}

export interface SessionTokenOptions {
  readonly keys: SigningKeys;
  readonly issuer: string;
  readonly audience: string;
  /** `token_ttl_hours`; values at or below zero fall back to 24. */
  readonly ttlHours: number;
}

/**
 * Issues and verifies the EdDSA JWTs of the gateway. Verification accepts only
 * `alg: EdDSA` (never `none`, never an HMAC keyed with the public key).
 */
export interface SessionTokens {
  issueSession(user: {
    accountKey: string;
    username: string;
    role: string;
    channels: readonly string[];
    authRevision: number;
  }): Promise<IssuedToken>;
  issuePreview(
    user: { accountKey: string; username: string; role: string; authRevision: number },
    channelId: string,
  ): Promise<IssuedToken>;
  /** Resolves to the claims, or undefined for any invalid, expired or foreign token. */
  verify(token: string): Promise<SessionClaims | undefined>;
}

export function createSessionTokens(options: SessionTokenOptions): SessionTokens {
  const ttlSec = (options.ttlHours > 0 ? options.ttlHours : 24) * 3600;
  const sign = async (
    sub: string,
    claims: Record<string, unknown>,
    lifetimeSec: number,
  ): Promise<IssuedToken> => {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + lifetimeSec;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: "EdDSA", typ: "JWT" })
      .setIssuer(options.issuer)
      .setAudience(options.audience)
      .setSubject(sub)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(options.keys.privateKey);
    return { token, expiresAt: new Date(exp * 1000) };
  };

  return {
    issueSession: (user) =>
      sign(
        user.username,
        {
          kind: "session",
          acct: user.accountKey,
          role: user.role,
          channels: [...user.channels],
          rev: user.authRevision,
        },
        ttlSec,
      ),
    issuePreview: (user, channelId) =>
      sign(
        user.username,
        {
          kind: "preview",
          acct: user.accountKey,
          role: user.role,
          channels: [channelId],
          rev: user.authRevision,
        },
        PREVIEW_TTL_SEC,
      ),
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, options.keys.publicKey, {
          algorithms: ["EdDSA"],
          issuer: options.issuer,
          audience: options.audience,
          clockTolerance: CLOCK_SKEW_SEC,
          // Spec "Session signing" 4: time claims are enforced, `iat` included. With
          // maxTokenAge jose refuses an `iat` later than now + skew, and a token older
          // than the longest lifetime this gateway issues.
          maxTokenAge: Math.max(ttlSec, PREVIEW_TTL_SEC),
          requiredClaims: ["exp", "iat", "nbf", "sub", "jti"],
        });
        const kind = payload.kind;
        const channels = payload.channels;
        if (kind !== "session" && kind !== "preview") return undefined;
        if (typeof payload.role !== "string" || typeof payload.rev !== "number") return undefined;
        if (typeof payload.acct !== "string" || payload.acct === "") return undefined;
        if (!Array.isArray(channels) || !channels.every((c) => typeof c === "string"))
          return undefined;
        if (kind === "preview" && channels.length !== 1) return undefined;
        return {
          kind,
          username: payload.sub!,
          accountKey: payload.acct,
          role: payload.role,
          channels: kind === "preview" || channels.length > 0 ? (channels as string[]) : null,
          authRevision: payload.rev,
          jti: payload.jti!,
          expiresAt: new Date(payload.exp! * 1000),
        };
      } catch (err) {
        if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return undefined;
        throw err;
      }
    },
  };
}
