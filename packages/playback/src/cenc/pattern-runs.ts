/**
 * The crypt:skip pattern of ISO/IEC 23001-7 §9.6, one run at a time, so that a buffer
 * walk and a streaming walk share the same rules. `left` is the number of bytes of the
 * protected range that follow the current run boundary; a pattern starts with a crypt run.
 *
 * - crypt 0, skip ≠ 0: nothing is encrypted.
 * - crypt 0 or skip 0 (incl. 0:0): every complete block is encrypted, one run.
 * - otherwise crypt×16 encrypted bytes alternate with skip×16 clear bytes; a trailing
 *   partial block is never encrypted, and a last run shorter than crypt×16 still has
 *   its complete blocks encrypted.
 */
export function cryptRunBytes(left: number, crypt: number, skip: number): number {
  if (crypt === 0 && skip !== 0) return 0;
  const whole = left - (left % 16);
  if (crypt === 0 || skip === 0) return whole;
  return Math.min(crypt * 16, whole);
}

/** Clear bytes that follow a crypt run (see {@link cryptRunBytes}); the rest of the range for whole-block patterns. */
export function skipRunBytes(left: number, crypt: number, skip: number): number {
  if (crypt === 0 || skip === 0) return left;
  return Math.min(skip * 16, left);
}
