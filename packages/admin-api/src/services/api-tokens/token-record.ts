import { isoSeconds } from "@svc/core/auth";
import type { ApiTokenRow } from "../../storage/credentials/repository.js";
import { isoOrNull } from "../credentials/render-time.js";

/** An API token row as stored (digest, never plaintext). */
export type ApiTokenRecord = ApiTokenRow;

/** The API token resource of the spec, as every response shows it. */
export function renderApiToken(t: ApiTokenRecord) {
  return {
    id: t.id,
    name: t.name,
    note: t.note,
    token_prefix: t.tokenPrefix,
    scopes: t.scopes,
    enabled: t.enabled && t.revokedAt === null,
    created_by: t.createdBy,
    created_at: isoSeconds(new Date(t.createdAt)),
    expires_at: isoOrNull(t.expiresAt),
    last_used_at: isoOrNull(t.lastUsedAt),
    revoked_at: isoOrNull(t.revokedAt),
    revision: t.revision,
    updated_at: isoSeconds(new Date(t.updatedAt)),
  };
}

/** Spec "Limits": token and key expiry up to 10 years. */
export const MAX_EXPIRY_SEC = 10 * 366 * 24 * 3600;

/** The warning shown with every plaintext. */
export const SHOWN_ONCE_WARNING =
  "Store this token now: it is shown only once and cannot be recovered (rotate to replace it).";
