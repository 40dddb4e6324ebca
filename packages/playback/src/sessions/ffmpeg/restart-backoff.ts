/** How the supervisor restarts an ffmpeg that exited on its own. */
export interface BackoffPolicy {
  /** Delay before the first restart. */
  readonly initialMs: number;
  /** Ceiling of the delay. */
  readonly maxMs: number;
  readonly factor: number;
  /** A run at least this long counts as stable: the failure count starts over. */
  readonly stableMs: number;
  /** Consecutive failed runs after which the session is `failed` (Infinity: never give up). */
  readonly maxConsecutiveFailures: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  initialMs: 1_000,
  maxMs: 30_000,
  factor: 2,
  stableMs: 60_000,
  maxConsecutiveFailures: 20,
};

/**
 * Delay before restart number `failures` (1 = after the first failure): initial·factor^(n-1),
 * capped at maxMs.
 * @example restartDelayMs(DEFAULT_BACKOFF, 3) // 4000
 */
export function restartDelayMs(policy: BackoffPolicy, failures: number): number {
  const n = Math.max(1, failures);
  const delay = policy.initialMs * policy.factor ** (n - 1);
  return Math.min(policy.maxMs, Math.round(delay));
}

/**
 * The consecutive-failure count after a run that lasted `runMs`: a stable run resets the
 * count, so a channel that ran for an hour restarts quickly after one hiccup.
 */
export function failuresAfterRun(policy: BackoffPolicy, previous: number, runMs: number): number {
  return runMs >= policy.stableMs ? 1 : previous + 1;
}
