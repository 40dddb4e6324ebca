/**
 * Fixed one-minute window counter (spec "Limits": login quota). Keyed by client
 * IP for login and by username plus IP for credential changes.
 */
export interface RateLimiter {
  /**
   * Counts one attempt; false when the key is over its quota for this window.
   * In memory the answer is immediate; a cluster's shared counter (in the
   * database, docs/security.md) answers with a promise.
   */
  take(key: string, now?: number): boolean | Promise<boolean>;
  /** Seconds until the key's window resets (for `Retry-After`), after a refused `take`. */
  retryAfterSec(key: string, now?: number): number;
  /**
   * Seconds the key stays refused because a `take` of another process sharing the
   * counter went over the quota in this window (0: not refused); answered at once, by a
   * counter that can (the workers' SQLite file).
   */
  refusedForSec?(key: string, now?: number): number;
}

/** The counter of one process: {@link RateLimiter} answering synchronously. */
export interface MemoryRateLimiter extends RateLimiter {
  take(key: string, now?: number): boolean;
}

/** The length of a limiter window. */
export const RATE_WINDOW_MS = 60_000;

/**
 * The in-memory counter. Memory is bounded: expired windows are swept, and past
 * `maxKeys` the oldest key goes.
 */
export function createRateLimiter(perMinute: number, maxKeys = 100_000): MemoryRateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  const sweep = (now: number) => {
    if (now - lastSweep < RATE_WINDOW_MS) return;
    lastSweep = now;
    for (const [key, w] of windows) if (now - w.start >= RATE_WINDOW_MS) windows.delete(key);
  };
  return {
    take(key, now = Date.now()) {
      sweep(now);
      let w = windows.get(key);
      if (w === undefined || now - w.start >= RATE_WINDOW_MS) {
        if (w === undefined && windows.size >= maxKeys) {
          const oldest = windows.keys().next().value;
          if (oldest !== undefined) windows.delete(oldest);
        }
        w = { start: now, count: 0 };
        windows.delete(key);
        windows.set(key, w);
      }
      w.count += 1;
      return w.count <= perMinute;
    },
    retryAfterSec(key, now = Date.now()) {
      const w = windows.get(key);
      if (w === undefined) return 0;
      return Math.max(1, Math.ceil((w.start + RATE_WINDOW_MS - now) / 1000));
    },
  };
}
