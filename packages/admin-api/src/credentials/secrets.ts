import { createHash, randomInt, timingSafeEqual } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` uniformly random base62 characters from the CSPRNG (no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** Hex SHA-256 of a credential plaintext: the only form a secret is stored in. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Constant-time equality of two hex digests of the same length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A server-made opaque id such as `at_4fT9…`. */
export function opaqueId(kind: string): string {
  return `${kind}_${randomBase62(16)}`;
}

/** Spec "Administrator API token": `svc_v1_` plus 48 base62 characters. */
export const API_TOKEN_SHAPE = /^svc_v1_[0-9A-Za-z]{48}$/;
/** Spec "Playback key": `v1` plus 126 base62 characters. */
export const PLAYBACK_KEY_SHAPE = /^v1[0-9A-Za-z]{126}$/;
/** Display prefix of an API token: the `svc_v1_` marker and five characters. */
export const API_TOKEN_PREFIX_LENGTH = 12;
/** Spec "Limits": a playback key's display prefix is 10 characters. */
export const PLAYBACK_KEY_PREFIX_LENGTH = 10;

export function newApiTokenPlaintext(): string {
  return `svc_v1_${randomBase62(48)}`;
}

export function newPlaybackKeyPlaintext(): string {
  return `v1${randomBase62(126)}`;
}

/** Extensions "Xtream Codes output": a generated Xtream password is 20 base62 characters. */
export function newXtreamPassword(): string {
  return randomBase62(20);
}
