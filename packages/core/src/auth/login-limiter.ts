/**
 * Fixed one-minute window counter (spec "Limits": login quota). Keyed by client
 * IP for login and by username plus IP for credential changes. Memory is
 * bounded: expired windows are swept, and past `maxKeys` the oldest key goes.
 */
export interface RateLimiter {
  /** Counts one attempt; false when the key is over its quota for this window. */
  take(key: string, now?: number): boolean;
  /** Seconds until the key's window resets (for `Retry-After`). */
  retryAfterSec(key: string, now?: number): number;
}

const WINDOW_MS = 60_000;

export function createRateLimiter(perMinute: number, maxKeys = 100_000): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  const sweep = (now: number) => {
    if (now - lastSweep < WINDOW_MS) return;
    lastSweep = now;
    for (const [key, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(key);
  };
  return {
    take(key, now = Date.now()) {
      sweep(now);
      let w = windows.get(key);
      if (w === undefined || now - w.start >= WINDOW_MS) {
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
      return Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    },
  };
}
