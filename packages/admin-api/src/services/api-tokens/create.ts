import {
  API_TOKEN_PREFIX_LENGTH,
  newApiTokenPlaintext,
  opaqueId,
} from "../../credentials/secrets.js";
import { storedSecret } from "../credentials/credential-actions.js";
import type { ApiTokenRecord } from "./token-record.js";
import { renderApiToken, SHOWN_ONCE_WARNING } from "./token-record.js";
import type { TokenScope } from "./token-scopes.js";
import type { ApiTokenStore } from "./token-store.js";

export interface NewApiToken {
  readonly name: string;
  readonly note: string;
  readonly scopes: readonly TokenScope[];
  /** 0: no expiry. */
  readonly expiresInSec: number;
}

/** The response of create and rotate: the plaintext, shown this once. */
export function issuedTokenResponse(plaintext: string, record: ApiTokenRecord) {
  return { token: plaintext, credential: renderApiToken(record), warning: SHOWN_ONCE_WARNING };
}

/** Creates a token; only its SHA-256 digest and display prefix are stored. */
export async function createApiToken(store: ApiTokenStore, createdBy: string, input: NewApiToken) {
  const plaintext = newApiTokenPlaintext();
  const now = Date.now();
  const record: ApiTokenRecord = {
    id: opaqueId("at"),
    name: input.name,
    note: input.note,
    ...storedSecret(plaintext, API_TOKEN_PREFIX_LENGTH),
    scopes: [...new Set(input.scopes)],
    enabled: true,
    createdBy,
    createdAt: now,
    expiresAt: input.expiresInSec === 0 ? null : now + input.expiresInSec * 1000,
    lastUsedAt: null,
    revokedAt: null,
    revision: 1,
    updatedAt: now,
  };
  await store.insert(record);
  return issuedTokenResponse(plaintext, record);
}
