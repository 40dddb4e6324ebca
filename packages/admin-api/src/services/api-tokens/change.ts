import { GatewayError } from "@svc/core/errors";
import { API_TOKEN_PREFIX_LENGTH, newApiTokenPlaintext } from "../../credentials/secrets.js";
import {
  type CredentialKind,
  credentialToChange,
  deleteCredential,
  revokeCredential,
  storedSecret,
} from "../credentials/credential-actions.js";
import { issuedTokenResponse } from "./create.js";
import { type ApiTokenRecord, renderApiToken } from "./token-record.js";
import type { TokenScope } from "./token-scopes.js";
import type { ApiTokenStore } from "./token-store.js";

/** Every change of an API token requires `If-Match`. */
const API_TOKEN: CredentialKind = { what: "API token", ifMatchRequired: true };

export interface ApiTokenUpdate {
  readonly name?: string | undefined;
  readonly note?: string | undefined;
  readonly scopes?: readonly TokenScope[] | undefined;
  readonly enabled?: boolean | undefined;
  /** ISO 8601 time, or null for no expiry. */
  readonly expires_at?: string | null | undefined;
}

/** `PUT /v1/admin/api-tokens/{id}`: `If-Match` required; a revoked token stays revoked. */
export async function updateApiToken(
  store: ApiTokenStore,
  id: string,
  ifMatch: string | undefined,
  patch: ApiTokenUpdate,
) {
  const t = credentialToChange(store, API_TOKEN, id, ifMatch);
  if (patch.enabled === true && t.revokedAt !== null) {
    throw new GatewayError("conflict", "a revoked token cannot be enabled again");
  }
  let expiresAt = t.expiresAt;
  if (patch.expires_at !== undefined) {
    if (patch.expires_at === null) expiresAt = null;
    else {
      const ms = Date.parse(patch.expires_at);
      if (Number.isNaN(ms))
        throw new GatewayError("invalid_request", "expires_at: must be an ISO 8601 time");
      expiresAt = ms;
    }
  }
  const next: ApiTokenRecord = {
    ...t,
    name: patch.name ?? t.name,
    note: patch.note ?? t.note,
    scopes: patch.scopes === undefined ? t.scopes : [...new Set(patch.scopes)],
    enabled: patch.enabled ?? t.enabled,
    expiresAt,
    revision: t.revision + 1,
    updatedAt: Date.now(),
  };
  await store.replace(next, t.revision);
  return { credential: renderApiToken(next) };
}

/** `POST …/rotate`: new secret, same id, name, scopes and expiry; the old secret stops at once. */
export async function rotateApiToken(
  store: ApiTokenStore,
  id: string,
  ifMatch: string | undefined,
) {
  const t = credentialToChange(store, API_TOKEN, id, ifMatch);
  if (t.revokedAt !== null) throw new GatewayError("conflict", "a revoked token cannot be rotated");
  const plaintext = newApiTokenPlaintext();
  const next: ApiTokenRecord = {
    ...t,
    ...storedSecret(plaintext, API_TOKEN_PREFIX_LENGTH),
    revision: t.revision + 1,
    updatedAt: Date.now(),
  };
  await store.replace(next, t.revision);
  return issuedTokenResponse(plaintext, next);
}

/** `POST …/revoke`: permanent. */
export const revokeApiToken = (store: ApiTokenStore, id: string, ifMatch: string | undefined) =>
  revokeCredential(store, API_TOKEN, id, ifMatch, (now) => ({ updatedAt: now }));

/** `DELETE`: the token stops working; audit records keep its id and prefix. */
export const deleteApiToken = (store: ApiTokenStore, id: string, ifMatch: string | undefined) =>
  deleteCredential(store, API_TOKEN, id, ifMatch);
