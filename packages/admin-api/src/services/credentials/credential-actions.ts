import { GatewayError } from "@svc/core/errors";
import { sha256Hex } from "../../credentials/secrets.js";
import { checkRevision } from "../if-match.js";
import type { CredentialMirror } from "./credential-mirror.js";

/** What differs between the credential kinds in the actions they share. */
export interface CredentialKind {
  /** The resource's name in a 404: "API token", "playback key". */
  readonly what: string;
  /** API tokens require `If-Match` on every change; playback keys check it when it is sent. */
  readonly ifMatchRequired: boolean;
}

interface Changeable {
  readonly revision: number;
  readonly revokedAt: number | null;
}

/** The stored credential `id` when `ifMatch` names its revision: 404 or 409 otherwise. */
export function credentialToChange<R extends Changeable>(
  store: CredentialMirror<R>,
  kind: CredentialKind,
  id: string,
  ifMatch: string | undefined,
): R {
  const found = store.get(id);
  if (found === undefined) throw new GatewayError("not_found", `no such ${kind.what}`);
  checkRevision(ifMatch, found.revision, { required: kind.ifMatchRequired });
  return found;
}

/** What is stored of a new secret (create, rotate): its display prefix and SHA-256 digest. */
export function storedSecret(plaintext: string, prefixLength: number) {
  return { tokenPrefix: plaintext.slice(0, prefixLength), digest: sha256Hex(plaintext) };
}

/**
 * The fields every new credential starts with: its secret's prefix and digest, enabled,
 * never used, first revision, and `expiresInSec` from now (0: no expiry).
 */
export function newCredentialFields(
  plaintext: string,
  prefixLength: number,
  input: { readonly name: string; readonly note: string; readonly expiresInSec: number },
  now: number,
) {
  return {
    name: input.name,
    note: input.note,
    ...storedSecret(plaintext, prefixLength),
    enabled: true,
    createdAt: now,
    expiresAt: input.expiresInSec === 0 ? null : now + input.expiresInSec * 1000,
    lastUsedAt: null,
    revokedAt: null,
    revision: 1,
  };
}

/**
 * `POST …/revoke`: permanent, the credential stops at once on every instance.
 * `stamp` adds the kind's own fields of a change (API tokens' `updatedAt`).
 */
export async function revokeCredential<R extends Changeable>(
  store: CredentialMirror<R>,
  kind: CredentialKind,
  id: string,
  ifMatch: string | undefined,
  stamp: (now: number) => Partial<R> = () => ({}),
): Promise<{ ok: true }> {
  const found = credentialToChange(store, kind, id, ifMatch);
  const now = Date.now();
  await store.replace(
    { ...found, ...stamp(now), revokedAt: found.revokedAt ?? now, revision: found.revision + 1 },
    found.revision,
  );
  return { ok: true };
}

/** `DELETE`: the credential stops working; its log records keep its id and prefix. */
export async function deleteCredential<R extends Changeable>(
  store: CredentialMirror<R>,
  kind: CredentialKind,
  id: string,
  ifMatch: string | undefined,
): Promise<void> {
  const found = credentialToChange(store, kind, id, ifMatch);
  await store.remove(id, found.revision);
}
