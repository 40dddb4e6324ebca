import type { Egress, EgressRequestOptions, EgressResponse } from "@svc/core/egress";

/** What the last good download answered with (RFC 9110 13.1.1, 13.1.3). */
export interface Validators {
  readonly etag: string | null;
  readonly lastModified: string | null;
}

export type ConditionalAnswer =
  | { readonly ok: false; readonly error: string }
  | { readonly ok: true; readonly notModified: true }
  | {
      readonly ok: true;
      readonly notModified: false;
      /** The 200 answer, its body not yet read. */
      readonly res: EgressResponse;
      readonly validators: Validators;
    };

/**
 * The conditional GET a scheduled source download starts with (guide sources, M3U provider
 * sources): through the gateway's egress (SSRF guard, each redirect checked again, the
 * routing rules), with `If-None-Match` / `If-Modified-Since` from the last good copy. Anything
 * but a 200 the caller can read ends here with a body drained or destroyed: a 304, another
 * status, a content coding not in `encodings`, a declared length over `maxBytes`. Error texts
 * are safe to show (no URL, query string or body); `what` names the body in them.
 */
export async function conditionalGet(
  egress: Egress,
  request: {
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly validators: Validators;
    readonly signal: AbortSignal;
    readonly route?: EgressRequestOptions["route"];
  },
  accept: {
    readonly encodings: readonly string[];
    readonly maxBytes: number;
    readonly what: string;
  },
): Promise<ConditionalAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.validators.etag !== null) headers["if-none-match"] = request.validators.etag;
  if (request.validators.lastModified !== null)
    headers["if-modified-since"] = request.validators.lastModified;
  const res = await egress.request(request.url, {
    headers,
    signal: request.signal,
    ...(request.route === undefined ? {} : { route: request.route }),
  });
  if (!res.ok) return { ok: false, error: `fetch failed: ${res.message}` };
  if (res.status === 304) {
    res.body.dump().catch(() => undefined);
    return { ok: true, notModified: true };
  }
  if (res.status !== 200) {
    res.body.dump().catch(() => undefined);
    return { ok: false, error: `source answered HTTP ${res.status}` };
  }
  const encoding = String(res.headers["content-encoding"] ?? "identity").toLowerCase();
  if (!accept.encodings.includes(encoding)) {
    res.body.destroy();
    return { ok: false, error: `unsupported content-encoding ${encoding}` };
  }
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > accept.maxBytes) {
    res.body.destroy();
    return { ok: false, error: `${accept.what} larger than ${accept.maxBytes} bytes` };
  }
  const header = (name: string) => {
    const value = res.headers[name];
    return typeof value === "string" ? value : null;
  };
  return {
    ok: true,
    notModified: false,
    res,
    validators: { etag: header("etag"), lastModified: header("last-modified") },
  };
}
