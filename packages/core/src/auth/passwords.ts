import bcrypt from "bcrypt";

/**
 * A hash of a random password, compared against when the username is unknown so
 * that "no such user" and "wrong password" take the same time.
 */
const DECOY_HASH = "$2b$12$P28550YKxt9xikPO0kDr/exM4TdsV7JvDBo7b4SZPjKLDpM2ROFMK";

/** Checks a password against a bcrypt hash (or the decoy when `hash` is undefined). */
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  // bcrypt reads at most 72 bytes; longer input is refused rather than silently truncated.
  if (Buffer.byteLength(password, "utf8") > 72) {
    await bcrypt.compare("", hash ?? DECOY_HASH);
    return false;
  }
  const ok = await bcrypt.compare(password, hash ?? DECOY_HASH);
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
