import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Work that must not hold the event loop (a 32 MiB M3U import is seconds of CPU) is written as
 * a generator that yields often; this runs it in slices of about `sliceMs`, giving the event
 * loop a turn (I/O: playback requests, health checks) between slices. The whole budget per
 * turn stays far under the 50 ms issue 30 item 1 allows, on a loaded machine too.
 *
 * @example
 * const total = await runInSlices(function* () { let s = 0; for (const x of xs) { s += x; yield; } return s; }());
 */
export async function runInSlices<T>(steps: Generator<void, T>, sliceMs = 8): Promise<T> {
  let until = performance.now() + sliceMs;
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() >= until) {
      await nextTurn();
      until = performance.now() + sliceMs;
    }
  }
}

/** Runs the same steps to the end at once: for callers (tests, small inputs) that may block. */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
