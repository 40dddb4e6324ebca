import { createHmac, generateKeyPairSync, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";

/** A fresh Ed25519 pair as PEM strings plus the KeyObjects, for configs that pin the key. */
export function ed25519Pair(): { privatePem: string; publicPem: string; privateKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privatePem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicPem: publicKey.export({ format: "pem", type: "spki" }).toString(),
    privateKey,
  };
}

/** Signs a session-shaped JWT with the gateway's real algorithm and arbitrary times. */
export async function signSession(
  key: KeyObject,
  claims: {
    sub: string;
    role: string;
    channels?: string[];
    rev?: number;
    kind?: string;
    /** The stable account key (the config username); defaults to `sub`. */
    acct?: string;
  },
  times: { iat: number; nbf: number; exp: number },
  options: { iss?: string; aud?: string } = {},
): Promise<string> {
  return new SignJWT({
    kind: claims.kind ?? "session",
    acct: claims.acct ?? claims.sub,
    role: claims.role,
    channels: claims.channels ?? [],
    rev: claims.rev ?? 0,
  })
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT" })
    .setIssuer(options.iss ?? "svc")
    .setAudience(options.aud ?? "svc")
    .setSubject(claims.sub)
    .setIssuedAt(times.iat)
    .setNotBefore(times.nbf)
    .setExpirationTime(times.exp)
    .setJti(`t-${Math.random().toString(36).slice(2)}`)
    .sign(key);
}

const b64url = (s: string | Buffer) => Buffer.from(s).toString("base64url");

/** A token with `alg: none` (no signature) — must always be refused. */
export function unsignedToken(payload: Record<string, unknown>): string {
  return `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${b64url(JSON.stringify(payload))}.`;
}

/** The classic key-confusion forgery: HS256 keyed with the public key's PEM text. */
export function hs256WithPublicKey(publicPem: string, payload: Record<string, unknown>): string {
  const head = `${b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64url(JSON.stringify(payload))}`;
  return `${head}.${createHmac("sha256", publicPem).update(head).digest("base64url")}`;
}
