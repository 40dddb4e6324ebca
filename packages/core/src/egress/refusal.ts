import { hasErrorCode } from "./error-code.js";

/**
 * Raised inside the connector when a target may not be dialled. It never leaves
 * the egress module: {@link createEgress} turns it into a `refused` result.
 */
export class EgressRefusedError extends Error {
  readonly code = "SVC_EGRESS_REFUSED";
  constructor(
    message: string,
    /** The refused range (`loopback`, `private`, …) or a short reason. */
    readonly reason: string,
  ) {
    super(message);
    this.name = "EgressRefusedError";
  }
}

/** Also matches the error after undici has passed it through its own layers. */
export function isRefusal(err: unknown): err is EgressRefusedError {
  return err instanceof EgressRefusedError || hasErrorCode(err, "SVC_EGRESS_REFUSED");
}
