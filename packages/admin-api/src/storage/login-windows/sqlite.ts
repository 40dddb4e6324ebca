import { RATE_WINDOW_MS, type RateLimiter } from "@svc/core/auth";
import type { Database } from "better-sqlite3";
import { connectionLock } from "../dialect/dialect.js";
import type { PgRateLimiterOptions } from "./postgres.js";

/** Window starts remembered for `Retry-After`; past this many the oldest goes. */
const MAX_REMEMBERED = 10_000;

/**
 * The login limiter of the workers of one host (`server.workers` > 1): the windows of
 * `login_windows` in the SQLite file, counted by one upsert (the same statement as
 * PostgreSQL's, `postgres.ts`), so N workers behind `node:cluster`'s round robin give an
 * attacker the quota once, not N times. When the file cannot be written (busy past its
 * timeout), the worker's own counter answers.
 */
export function createSqliteRateLimiter(
  client: Database,
  options: PgRateLimiterOptions,
): RateLimiter {
  const { perMinute, local } = options;
  const onError = options.onError ?? (() => {});
  const count = client.prepare<
    [{ key: string; now: number; stale: number }],
    { window_start: number; count: number }
  >(`
    INSERT INTO login_windows (key, window_start, count) VALUES (@key, @now, 1)
    ON CONFLICT (key) DO UPDATE SET
      window_start = CASE WHEN login_windows.window_start <= @stale
                          THEN excluded.window_start ELSE login_windows.window_start END,
      count = CASE WHEN login_windows.window_start <= @stale THEN 1 ELSE login_windows.count + 1 END
    RETURNING window_start, count`);
  const purge = client.prepare<[number]>("DELETE FROM login_windows WHERE window_start <= ?");
  const window = client.prepare<[string], { window_start: number; count: number }>(
    "SELECT window_start, count FROM login_windows WHERE key = ?",
  );
  const starts = new Map<string, number>();
  let lastSweep = 0;
  // Under the workers' write lock (connectionLock): never waits on SQLite's with the loop stopped.
  const exclusive = connectionLock(client);
  return {
    async take(key, now = Date.now()) {
      const here = local.take(key, now);
      let row: { window_start: number; count: number } | undefined;
      try {
        row = await exclusive(async () => {
          if (now - lastSweep >= RATE_WINDOW_MS) {
            lastSweep = now;
            purge.run(now - RATE_WINDOW_MS);
          }
          return count.get({ key, now, stale: now - RATE_WINDOW_MS });
        });
      } catch (err) {
        onError(err);
      }
      starts.delete(key);
      if (row === undefined) return here;
      if (starts.size >= MAX_REMEMBERED) {
        const oldest = starts.keys().next().value;
        if (oldest !== undefined) starts.delete(oldest);
      }
      starts.set(key, row.window_start);
      return row.count <= perMinute;
    },
    // A read (WAL), no lock: the window is over its quota once any worker's take went past it.
    refusedForSec(key, now = Date.now()) {
      let row: { window_start: number; count: number } | undefined;
      try {
        row = window.get(key);
      } catch (err) {
        onError(err);
      }
      if (row === undefined || row.count <= perMinute) return 0;
      const left = row.window_start + RATE_WINDOW_MS - now;
      return left <= 0 ? 0 : Math.max(1, Math.ceil(left / 1000));
    },
    retryAfterSec(key, now = Date.now()) {
      const start = starts.get(key);
      if (start === undefined) return local.retryAfterSec(key, now);
      return Math.max(1, Math.ceil((start + RATE_WINDOW_MS - now) / 1000));
    },
  };
}
