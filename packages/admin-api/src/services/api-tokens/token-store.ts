import type { ApiTokensRepository } from "../../storage/credentials/repository.js";
import { type CredentialMirror, createCredentialMirror } from "../credentials/credential-mirror.js";
import type { ApiTokenRecord } from "./token-record.js";

/**
 * API tokens held in memory (loaded once, updated after each committed write,
 * reloaded when another instance writes) so authenticating a request costs a
 * map lookup by digest, not a query.
 */
export type ApiTokenStore = CredentialMirror<ApiTokenRecord>;

export function createApiTokenStore(repo: ApiTokensRepository): Promise<ApiTokenStore> {
  return createCredentialMirror(repo, "API token");
}
