import { GatewayError } from "../base/errors.js";

/** Runs jobs at most `slots` at a time, with at most `queue` more waiting. */
export interface BoundedWork {
  /**
   * Runs `job` once a slot is free. With every slot busy and the queue full it
   * throws 429 `too_many_requests` at once, with `Retry-After` set to when the
   * work ahead should be done: a flood is answered quickly instead of waiting.
   */
  run<T>(job: () => Promise<T>): Promise<T>;
  /** Jobs running and waiting (for tests and metrics). */
  readonly load: () => { running: number; waiting: number };
}

/** The duration assumed for a job before the first one finished (a cost-12 bcrypt on one core). */
const INITIAL_JOB_MS = 250;

/**
 * @example
 * const work = createBoundedWork({ slots: 2, queue: 32, refusal: "too many logins in progress" });
 * const ok = await work.run(() => bcrypt.compare(password, hash));
 */
export function createBoundedWork(options: {
  slots: number;
  queue: number;
  /** The 429's message. */
  refusal: string;
}): BoundedWork {
  const slots = Math.max(1, Math.floor(options.slots));
  const waiting: (() => void)[] = [];
  let running = 0;
  // A moving average of job durations, for Retry-After.
  let jobMs = INITIAL_JOB_MS;

  const release = () => {
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next(); // the slot passes straight to the next job
  };

  return {
    async run(job) {
      if (running >= slots) {
        if (waiting.length >= options.queue) {
          const aheadMs = ((running + waiting.length) * jobMs) / slots;
          throw new GatewayError("too_many_requests", options.refusal, {
            headers: { "Retry-After": String(Math.max(1, Math.ceil(aheadMs / 1000))) },
          });
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else running += 1;
      const started = performance.now();
      try {
        return await job();
      } finally {
        jobMs = 0.8 * jobMs + 0.2 * (performance.now() - started);
        release();
      }
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}
