import { randomInt } from "node:crypto";
import bcrypt from "bcrypt";

/** bcrypt's salt and hash alphabet. */
const BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const COST = /^\$2[aby]\$(\d\d)\$/;
const decoys = new Map<number, string>();

/**
 * A hash to compare against when the username is unknown, so that "no such
 * user" and "wrong password" take the same time. bcrypt's work depends only on
 * the cost, so the decoy takes the highest cost among the accounts' hashes:
 * with a fixed cost, a gateway whose users have another cost would tell a
 * client which usernames exist by the time a login takes. The decoy is a
 * random salt and digest, matching no password; one per cost, made once.
 */
export function decoyHash(hashes: Iterable<string>): string {
  let cost = 0;
  for (const h of hashes) cost = Math.max(cost, Number(COST.exec(h)?.[1] ?? 0));
  if (cost === 0) cost = BCRYPT_COST;
  let decoy = decoys.get(cost);
  if (decoy === undefined) {
    let body = "";
    for (let i = 0; i < 53; i++) body += BCRYPT_ALPHABET[randomInt(BCRYPT_ALPHABET.length)];
    decoy = `$2b$${String(cost).padStart(2, "0")}$${body}`;
    decoys.set(cost, decoy);
  }
  return decoy;
}

/**
 * Checks a password against a bcrypt hash; with `hash` undefined (unknown
 * user) it spends the same work on `decoy` and answers false.
 */
export async function verifyPassword(
  password: string,
  hash: string | undefined,
  decoy: string = decoyHash([]),
): Promise<boolean> {
  // bcrypt reads at most 72 bytes; longer input is refused rather than silently truncated.
  if (Buffer.byteLength(password, "utf8") > 72) {
    await bcrypt.compare("", hash ?? decoy);
    return false;
  }
  const ok = await bcrypt.compare(password, hash ?? decoy);
  return ok && hash !== undefined;
}

/**
 * bcrypt cost of every hash the gateway makes (credential changes, first run,
 * `hash-password`): 2^12 rounds, about a quarter of a second on one core.
 */
export const BCRYPT_COST = 12;

/** Hashes a new password with {@link BCRYPT_COST}. */
export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}
