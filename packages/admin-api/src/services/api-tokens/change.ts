import { GatewayError } from "@svc/core/errors";
import {
  API_TOKEN_PREFIX_LENGTH,
  newApiTokenPlaintext,
  sha256Hex,
} from "../../credentials/secrets.js";
import { checkRevision } from "../../http/if-match.js";
import { issuedTokenResponse } from "./create.js";
import { type ApiTokenRecord, renderApiToken } from "./token-record.js";
import type { TokenScope } from "./token-scopes.js";
import type { ApiTokenStore } from "./token-store.js";

function existing(store: ApiTokenStore, id: string): ApiTokenRecord {
  const t = store.get(id);
  if (t === undefined) throw new GatewayError("not_found", "no such API token");
  return t;
}

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
  const t = existing(store, id);
  checkRevision(ifMatch, t.revision, { required: true });
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
  const t = existing(store, id);
  checkRevision(ifMatch, t.revision, { required: true });
  if (t.revokedAt !== null) throw new GatewayError("conflict", "a revoked token cannot be rotated");
  const plaintext = newApiTokenPlaintext();
  const next: ApiTokenRecord = {
    ...t,
    tokenPrefix: plaintext.slice(0, API_TOKEN_PREFIX_LENGTH),
    digest: sha256Hex(plaintext),
    revision: t.revision + 1,
    updatedAt: Date.now(),
  };
  await store.replace(next, t.revision);
  return issuedTokenResponse(plaintext, next);
}

/** `POST …/revoke`: permanent. */
export async function revokeApiToken(
  store: ApiTokenStore,
  id: string,
  ifMatch: string | undefined,
) {
  const t = existing(store, id);
  checkRevision(ifMatch, t.revision, { required: true });
  const now = Date.now();
  await store.replace(
    { ...t, revokedAt: t.revokedAt ?? now, revision: t.revision + 1, updatedAt: now },
    t.revision,
  );
  return { ok: true as const };
}

/** `DELETE`: the token stops working; audit records keep its id and prefix. */
export async function deleteApiToken(
  store: ApiTokenStore,
  id: string,
  ifMatch: string | undefined,
): Promise<void> {
  const t = existing(store, id);
  checkRevision(ifMatch, t.revision, { required: true });
  await store.remove(id, t.revision);
}
