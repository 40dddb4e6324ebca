import { createHmac, timingSafeEqual } from "node:crypto";

/** How long a token is good for: one forwarded stop, sent at once. */
const TOKEN_TTL_MS = 30_000;
/** Clock difference between instances tolerated (as for play tokens, `instance-token.ts`). */
const SKEW_MS = 30_000;
/** Domain separation from play tokens, `u/` URLs and viewer leases under the same key. */
const KEY_LABEL = "svc instance session stop v1";

export interface SessionStopTokens {
  mint(channelId: string, now?: number): string;
  /** True when the token is this cluster's, for this channel, and not expired. */
  verify(token: string, channelId: string, now?: number): boolean;
}

/**
 * Tokens of `DELETE /v1/admin/sessions/{id}` forwarded by the instance the admin reached
 * to the channel's owner (sent in `X-Svc-Instance-Token`): `s1.{expiry}.{mac}`, an
 * HMAC-SHA256 under a key derived from the shared `security.signing_key`, bound to the
 * channel. The forwarding instance checked the admin's credential and scope; the token
 * stands for that check, can only stop that one channel's session, and lapses in 30 s.
 *
 * @example
 * const tokens = createSessionStopTokens(signingKey);
 * tokens.verify(tokens.mint("news"), "news"); // true
 */
export function createSessionStopTokens(signingKey: Buffer): SessionStopTokens {
  const key = createHmac("sha256", signingKey).update(KEY_LABEL).digest();
  const mac = (expiry: string, channelId: string) =>
    createHmac("sha256", key).update(`${expiry}\n${channelId}`).digest();
  return {
    mint(channelId, now = Date.now()) {
      const expiry = (now + TOKEN_TTL_MS).toString(36);
      return `s1.${expiry}.${mac(expiry, channelId).toString("base64url")}`;
    },
    verify(token, channelId, now = Date.now()) {
      const parts = token.split(".");
      if (parts.length !== 3 || parts[0] !== "s1") return false;
      const [, expiry = "", sig = ""] = parts;
      if (!/^[0-9a-z]{1,12}$/.test(expiry)) return false;
      const given = Buffer.from(sig, "base64url");
      const want = mac(expiry, channelId);
      if (given.length !== want.length || !timingSafeEqual(given, want)) return false;
      const e = Number.parseInt(expiry, 36);
      return e + SKEW_MS >= now && e <= now + TOKEN_TTL_MS + SKEW_MS;
    },
  };
}
