import { API_TOKEN_SHAPE } from "../../credentials/secrets.js";
import {
  credentialBySecret,
  credentialBySecretFresh,
  credentialRefusal,
} from "../credentials/presented-secret.js";
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
 * Finds a token by the SHA-256 digest of the presented secret and checks its state:
 * revoked or disabled → `revoked`, past `expires_at` → `expired`.
 */
export function authenticateApiToken(
  store: ApiTokenStore,
  presented: string,
  now = Date.now(),
): ApiTokenCheck {
  return tokenCheck(credentialBySecret(store, API_TOKEN_SHAPE, presented), now);
}

/** {@link authenticateApiToken}, after `catchUp` when no token has the secret ({@link credentialBySecretFresh}). */
export async function authenticateApiTokenFresh(
  store: ApiTokenStore,
  presented: string,
  catchUp: (() => Promise<void>) | undefined,
): Promise<ApiTokenCheck> {
  const token = await credentialBySecretFresh(store, API_TOKEN_SHAPE, presented, catchUp);
  return tokenCheck(token, Date.now());
}

function tokenCheck(token: ApiTokenRecord | undefined, now: number): ApiTokenCheck {
  if (token === undefined) return { ok: false, reason: "invalid", token };
  const refusal = credentialRefusal(token, now);
  return refusal === null ? { ok: true, token } : { ok: false, reason: refusal, token };
}
