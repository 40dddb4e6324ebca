/**
 * The one error model of the gateway (spec "Errors"): every error body is
 * exactly `{error: {code, message}}` with a stable lowercase code.
 */

/** Stable error codes of the specification with their typical HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  upstream_error: 502,
  unavailable: 503,
  not_ready: 503,
  too_many_requests: 429,
  internal: 500,
  current_password_invalid: 422,
  username_taken: 409,
  // Named by the API-token rules (spec "Admin API tokens": denial reasons).
  route_not_available: 403,
  session_required: 403,
  missing_scope: 403,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Status codes a GatewayError may carry (the code's typical one, or a documented variant). */
export type ErrorStatus =
  | 400
  | 401
  | 403
  | 404
  | 405
  | 409
  | 410
  | 413
  // 421 Misdirected Request: between instances only (cluster mode, a play request
  // forwarded to an instance that no longer packages the channel); never to a player.
  | 421
  | 422
  | 428
  | 429
  | 500
  | 502
  | 503;

/**
 * The single error class. Throw it from handlers and middleware; the app's one
 * `onError` renders it. `status` defaults to the code's typical status.
 *
 * @example
 * throw new GatewayError("conflict", "revision mismatch");
 * throw new GatewayError("not_found", "publication generation is gone", { status: 410 });
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  /** Extra response headers (for example `Retry-After`). */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { status?: ErrorStatus; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers;
  }
}

/** Response body for an error; the only shape a client ever sees. */
export function errorBody(code: ErrorCode, message: string) {
  return { error: { code, message } };
}

/** Message every internal failure answers with: no stack or detail leaves the process. */
export const INTERNAL_MESSAGE = "internal server error";
