import { digestsEqual, sha256Hex } from "../../credentials/secrets.js";
import type { CredentialMirror } from "./credential-mirror.js";

interface Presentable {
  readonly digest: string;
  readonly enabled: boolean;
  readonly revokedAt: number | null;
  readonly expiresAt: number | null;
}

type ByDigest<R> = Pick<CredentialMirror<R>, "byDigest">;

/**
 * The credential whose digest is the SHA-256 of `presented` (the map key is the digest, and
 * the stored digest is compared in constant time); undefined when `presented` is not of the
 * kind's `shape` or no credential has it.
 */
export function credentialBySecret<R extends Presentable>(
  store: ByDigest<R>,
  shape: RegExp,
  presented: string,
): R | undefined {
  if (!shape.test(presented)) return undefined;
  const digest = sha256Hex(presented);
  const found = store.byDigest(digest);
  return found !== undefined && digestsEqual(found.digest, digest) ? found : undefined;
}

/**
 * {@link credentialBySecret}, and for a well-formed secret no credential has, once more after
 * `catchUp` (cluster mode: a credential created on another instance a moment ago is known here
 * once the mirror caught up; `credential-catch-up.ts`).
 */
export async function credentialBySecretFresh<R extends Presentable>(
  store: ByDigest<R>,
  shape: RegExp,
  presented: string,
  catchUp: (() => Promise<void>) | undefined,
): Promise<R | undefined> {
  const found = credentialBySecret(store, shape, presented);
  if (found !== undefined || catchUp === undefined || !shape.test(presented)) return found;
  await catchUp();
  return credentialBySecret(store, shape, presented);
}

/** Why a found credential may not be used: revoked or disabled, or past `expires_at`; null when it may. */
export function credentialRefusal(record: Presentable, now: number): "revoked" | "expired" | null {
  if (record.revokedAt !== null || !record.enabled) return "revoked";
  if (record.expiresAt !== null && record.expiresAt <= now) return "expired";
  return null;
}
