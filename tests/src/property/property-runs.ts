import type { Parameters } from "fast-check";

/**
 * One fixed seed for every property suite, so a failure reproduces on the next run and on
 * another machine; `PROPERTY_SEED=<n>` explores other inputs. fast-check prints the seed and
 * the counterexample path of a failure in the assertion message.
 */
export const PROPERTY_SEED = Number(process.env.PROPERTY_SEED ?? 20261125);

/** Settings of one property: the fixed seed and a bounded run count (the whole suite < 30 s). */
export function runs<T>(numRuns: number): Parameters<T> {
  return { seed: PROPERTY_SEED, numRuns };
}
