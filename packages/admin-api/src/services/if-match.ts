import { GatewayError } from "@svc/core/errors";

/**
 * Reads an `If-Match` revision: `"<n>"` or a bare `<n>` (operator contract
 * "Wire details"). Undefined when the header is absent; a malformed value is a
 * mismatch, not a wildcard.
 */
export function parseIfMatch(header: string | undefined): number | undefined | "invalid" {
  if (header === undefined || header.trim() === "") return undefined;
  const m = /^\s*(?:W\/)?"?([1-9][0-9]{0,15})"?\s*$/.exec(header);
  return m === null ? "invalid" : Number(m[1]);
}

/**
 * Spec "Concurrency headers": checks the revision against the stored one.
 * `required`: a missing header is 409 (the spec's status for these endpoints).
 */
export function checkRevision(
  header: string | undefined,
  current: number,
  options: { required: boolean },
): void {
  const wanted = parseIfMatch(header);
  if (wanted === undefined) {
    if (options.required) throw new GatewayError("conflict", "If-Match revision is required");
    return;
  }
  if (wanted !== current) {
    throw new GatewayError("conflict", `revision mismatch: current revision is ${current}`);
  }
}

/** `ETag` value of a revision. */
export function etag(revision: number): string {
  return `"${revision}"`;
}
