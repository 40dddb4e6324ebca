import {
  API_TOKEN_PREFIX_LENGTH,
  newApiTokenPlaintext,
  opaqueId,
} from "../../credentials/secrets.js";
import { newCredentialFields } from "../credentials/credential-actions.js";
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
    ...newCredentialFields(plaintext, API_TOKEN_PREFIX_LENGTH, input, now),
    scopes: [...new Set(input.scopes)],
    createdBy,
    updatedAt: now,
  };
  await store.insert(record);
  return issuedTokenResponse(plaintext, record);
}
