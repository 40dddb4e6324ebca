import { API_TOKEN_SHAPE, digestsEqual, sha256Hex } from "../../credentials/secrets.js";
import type { ApiTokenRecord } from "./token-record.js";
import type { ApiTokenStore } from "./token-store.js";

export type ApiTokenCheck =
  | { readonly ok: true; readonly token: ApiTokenRecord }
  | {
      readonly ok: false;
      /** Spec "Admin API tokens" denial reasons; `invalid` for an unknown secret. */
      readonly reason: "invalid" | "revoked" | "expired";
      readonly token: ApiTokenRecord | undefined;
    };

/**
 * Finds a token by the SHA-256 digest of the presented secret (the map key is
 * the digest, and the stored digest is compared in constant time) and checks
 * its state: revoked or disabled → `revoked`, past `expires_at` → `expired`.
 */
export function authenticateApiToken(
  store: ApiTokenStore,
  presented: string,
  now = Date.now(),
): ApiTokenCheck {
  if (!API_TOKEN_SHAPE.test(presented)) return { ok: false, reason: "invalid", token: undefined };
  const digest = sha256Hex(presented);
  const token = store.byDigest(digest);
  if (token === undefined || !digestsEqual(token.digest, digest)) {
    return { ok: false, reason: "invalid", token: undefined };
  }
  if (token.revokedAt !== null || !token.enabled) return { ok: false, reason: "revoked", token };
  if (token.expiresAt !== null && token.expiresAt <= now)
    return { ok: false, reason: "expired", token };
  return { ok: true, token };
}

/**
 * {@link authenticateApiToken}, and for a well-formed secret no token has, once more after
 * `catchUp` (cluster mode: a token created on another instance a moment ago is known here
 * once the mirror caught up; `credential-catch-up.ts`).
 */
export async function authenticateApiTokenFresh(
  store: ApiTokenStore,
  presented: string,
  catchUp: (() => Promise<void>) | undefined,
): Promise<ApiTokenCheck> {
  const check = authenticateApiToken(store, presented);
  if (check.token !== undefined || catchUp === undefined || !API_TOKEN_SHAPE.test(presented))
    return check;
  await catchUp();
  return authenticateApiToken(store, presented);
}
