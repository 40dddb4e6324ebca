import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { type ErrorCode, errorBody, GatewayError, INTERNAL_MESSAGE } from "../base/errors.js";
import type { AppEnv } from "./types.js";

/** Renders an error in the one body shape, with the given status. */
export function errorResponse(
  c: Context<AppEnv>,
  code: ErrorCode,
  message: string,
  status: number,
  headers?: Readonly<Record<string, string>>,
): Response {
  const res = c.json(errorBody(code, message), status as 400);
  if (headers !== undefined) for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
  return res;
}

/**
 * The app's one `onError`: a GatewayError renders its code; anything else is
 * logged with the request id and the stack and answers `internal server error`.
 */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof GatewayError)
    return errorResponse(c, err.code, err.message, err.status, err.headers);
  if (err instanceof HTTPException && err.status < 500) {
    // Raised by hono's own middleware (body limit, malformed input).
    const code: ErrorCode =
      err.status === 401 ? "unauthorized" : err.status === 403 ? "forbidden" : "invalid_request";
    return errorResponse(c, code, err.message || "invalid request", err.status);
  }
  const log = c.get("log");
  log?.error({ reqId: c.get("requestId"), err }, "unhandled error");
  return errorResponse(c, "internal", INTERNAL_MESSAGE, 500);
};

export const onNotFound: NotFoundHandler<AppEnv> = (c) =>
  errorResponse(c, "not_found", "not found", 404);
