import { type MemoryRateLimiter, RATE_WINDOW_MS, type RateLimiter } from "@svc/core/auth";
import { sql } from "drizzle-orm";
import type { PgStateDb } from "../../db/pg-client.js";

/** Window starts remembered for `Retry-After`; past this many the oldest goes. */
const MAX_REMEMBERED = 10_000;

export interface PgRateLimiterOptions {
  readonly perMinute: number;
  /**
   * This instance's own counter: it counts every attempt too and answers when
   * the database cannot, so an outage falls back to the per-instance budget
   * instead of refusing every login or admitting unlimited guesses.
   */
  readonly local: MemoryRateLimiter;
  readonly onError?: (err: unknown) => void;
}

/**
 * The login limiter of a cluster (spec "Limits", docs/security.md): one fixed
 * one-minute window per key in `login_windows`, counted by a single upsert, so
 * N instances behind a round-robin balancer give an attacker the quota once,
 * not N times. Same windows as the in-memory counter: a window starts at the
 * first attempt and lasts {@link RATE_WINDOW_MS}.
 *
 * @example
 * const limiter = createPgRateLimiter(storage.pg, { perMinute: 20, local: createRateLimiter(20) });
 * if (!(await limiter.take(`login:${ip}`))) retryAfter = limiter.retryAfterSec(`login:${ip}`);
 */
export function createPgRateLimiter(db: PgStateDb, options: PgRateLimiterOptions): RateLimiter {
  const { perMinute, local } = options;
  const onError = options.onError ?? (() => {});
  /** key → start of its shared window, as the last `take` saw it. */
  const starts = new Map<string, number>();
  let lastSweep = 0;

  const sweep = (now: number) => {
    if (now - lastSweep < RATE_WINDOW_MS) return;
    lastSweep = now;
    db.execute(sql`delete from login_windows where window_start <= ${now - RATE_WINDOW_MS}::int8`)
      .then(() => {})
      .catch(onError);
  };

  return {
    async take(key, now = Date.now()) {
      const here = local.take(key, now);
      sweep(now);
      let row: { window_start: string | number; count: number } | undefined;
      try {
        // On conflict the SET expressions read the stored row: a window older
        // than a minute restarts at this attempt, otherwise it counts one more.
        const r = await db.execute<{ window_start: string | number; count: number }>(sql`
          insert into login_windows (key, window_start, count)
          values (${key}::text, ${now}::int8, 1)
          on conflict (key) do update set
            window_start = case when login_windows.window_start <= ${now - RATE_WINDOW_MS}::int8
                                then excluded.window_start else login_windows.window_start end,
            count = case when login_windows.window_start <= ${now - RATE_WINDOW_MS}::int8
                         then 1 else login_windows.count + 1 end
          returning window_start, count`);
        row = r.rows[0];
      } catch (err) {
        onError(err);
      }
      if (row === undefined) {
        starts.delete(key);
        return here;
      }
      starts.delete(key);
      if (starts.size >= MAX_REMEMBERED) {
        const oldest = starts.keys().next().value;
        if (oldest !== undefined) starts.delete(oldest);
      }
      starts.set(key, Number(row.window_start));
      return row.count <= perMinute;
    },
    retryAfterSec(key, now = Date.now()) {
      const start = starts.get(key);
      if (start === undefined) return local.retryAfterSec(key, now);
      return Math.max(1, Math.ceil((start + RATE_WINDOW_MS - now) / 1000));
    },
  };
}
