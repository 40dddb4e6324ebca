/**
 * Result values shared by the box toolkit and the CENC decryptor.
 *
 * Parsers in this package never throw past their public functions: a malformed
 * or hostile input yields `{ ok: false, error: { box, message } }`.
 */

/** Describes why a box could not be parsed or processed. `box` is the four-character type involved. */
export interface Mp4Error {
  box: string;
  message: string;
}

/** Either a value or an {@link Mp4Error}. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: Mp4Error };

/** The failing branch of {@link Result}. */
export type Failure = { ok: false; error: Mp4Error };

/** Wraps a value as a successful {@link Result}. */
export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Builds a failed {@link Result}. */
export function fail(box: string, message: string): Failure {
  return { ok: false, error: { box, message } };
}

/**
 * Internal signal used while walking nested structures; converted to a
 * {@link Failure} by {@link guard} before it can reach a caller.
 */
export class BoxParseError extends Error {
  readonly box: string;
  constructor(box: string, message: string) {
    super(message);
    this.box = box;
  }
}

/** Throws a {@link BoxParseError}; only for use inside a {@link guard}ed computation. */
export function raise(box: string, message: string): never {
  throw new BoxParseError(box, message);
}

/**
 * Runs `fn` and turns a {@link BoxParseError} (or an unexpected RangeError from a
 * Buffer accessor, which the bounds checks should already prevent) into a failure value.
 */
export function guard<T>(box: string, fn: () => T): Result<T> {
  try {
    return ok(fn());
  } catch (e) {
    if (e instanceof BoxParseError) return fail(e.box, e.message);
    if (e instanceof RangeError) return fail(box, `out of range: ${e.message}`);
    throw e;
  }
}
