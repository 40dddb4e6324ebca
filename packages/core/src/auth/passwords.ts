import { randomInt } from "node:crypto";
import bcrypt from "bcrypt";
import { createBoundedWork } from "./bounded-work.js";

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
 * bcrypt cost of every hash the gateway makes (credential changes, first run,
 * `hash-password`): 2^12 rounds, about a quarter of a second on one core.
 */
export const BCRYPT_COST = 12;

/** libuv's thread pool size when `UV_THREADPOOL_SIZE` is unset. */
export const DEFAULT_THREADPOOL_SIZE = 4;
/** Hashes that may wait for a slot, per slot: about four seconds of cost-12 work ahead. */
const QUEUE_PER_SLOT = 16;

/** Every bcrypt use of the process goes through one of these (one per process). */
export interface PasswordHasher {
  /**
   * Checks a password against a bcrypt hash; with `hash` undefined (unknown
   * user) it spends the same work on `decoy`, in the same queue, and answers false.
   * Throws 429 `too_many_requests` when the queue is full.
   */
  verify(password: string, hash: string | undefined, decoy?: string): Promise<boolean>;
  /** Hashes a new password with {@link BCRYPT_COST}; 429 when the queue is full. */
  hash(password: string): Promise<string>;
}

/**
 * How many hashes may run at once: at most one per core, and always at least
 * one libuv thread left free. bcrypt's async API runs on libuv's thread pool
 * (4 threads unless `UV_THREADPOOL_SIZE` says otherwise), the pool that also
 * runs file reads, `dns.lookup` and WebCrypto (jose's JWT signatures). With
 * every thread on a quarter-second hash, a login flood queued each of those
 * behind all the hashes: a playlist request with a new token waited minutes.
 *
 * @example
 * hashSlots(2, 4) // 2
 * hashSlots(8, 4) // 3
 */
export function hashSlots(cores: number, threadpoolSize: number): number {
  return Math.max(1, Math.min(cores, threadpoolSize - 1));
}

/**
 * The process's password hasher. Create one and hand it to every user (login,
 * credential change): two would each take their own slots of the one thread pool.
 */
export function createPasswordHasher(options: {
  /** `os.availableParallelism()`. */
  cores: number;
  /** `UV_THREADPOOL_SIZE`, default {@link DEFAULT_THREADPOOL_SIZE}. */
  threadpoolSize?: number;
}): PasswordHasher {
  const slots = hashSlots(options.cores, options.threadpoolSize ?? DEFAULT_THREADPOOL_SIZE);
  const work = createBoundedWork({
    slots,
    queue: slots * QUEUE_PER_SLOT,
    refusal: "too many logins in progress",
  });
  return {
    async verify(password, hash, decoy = decoyHash([])) {
      // bcrypt reads at most 72 bytes; longer input is refused rather than silently truncated.
      if (Buffer.byteLength(password, "utf8") > 72) {
        await work.run(() => bcrypt.compare("", hash ?? decoy));
        return false;
      }
      const ok = await work.run(() => bcrypt.compare(password, hash ?? decoy));
      return ok && hash !== undefined;
    },
    hash: (password) => work.run(() => bcrypt.hash(password, BCRYPT_COST)),
  };
}
