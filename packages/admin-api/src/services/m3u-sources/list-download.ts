import type { Egress } from "@svc/core/egress";

/** What the last good download answered with (RFC 9110 13.1.1, 13.1.3). */
export interface Validators {
  readonly etag: string | null;
  readonly lastModified: string | null;
}

export type ListDownload =
  | { readonly ok: true; readonly notModified: true }
  | {
      readonly ok: true;
      readonly notModified: false;
      /** The playlist as the pieces it was decoded in (never joined: up to the ceiling). */
      readonly pieces: readonly string[];
      readonly validators: Validators;
    }
  | { readonly ok: false; readonly error: string };

/**
 * GETs a provider playlist through the gateway's egress (SSRF guard, each redirect checked
 * again, the routing rules), conditionally when validators of the last good copy are known.
 * The body is read up to `maxBytes` and decoded as UTF-8 piece by piece. Error texts are
 * safe to show: no URL, query string or body.
 */
export async function downloadList(
  egress: Egress,
  request: {
    readonly url: string;
    readonly validators: Validators;
    readonly userAgent: string;
    readonly signal: AbortSignal;
  },
  maxBytes: number,
): Promise<ListDownload> {
  const headers: Record<string, string> = {
    "user-agent": request.userAgent,
    accept: "audio/x-mpegurl, application/vnd.apple.mpegurl, text/plain, */*;q=0.5",
  };
  if (request.validators.etag !== null) headers["if-none-match"] = request.validators.etag;
  if (request.validators.lastModified !== null)
    headers["if-modified-since"] = request.validators.lastModified;
  const res = await egress.request(request.url, {
    headers,
    signal: request.signal,
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
  if (encoding !== "identity") {
    res.body.destroy();
    return { ok: false, error: `unsupported content-encoding ${encoding}` };
  }
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    return { ok: false, error: `playlist larger than ${maxBytes} bytes` };
  }
  const decoder = new TextDecoder("utf-8");
  const pieces: string[] = [];
  let received = 0;
  try {
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      received += buf.length;
      if (received > maxBytes) {
        res.body.destroy();
        return { ok: false, error: `playlist larger than ${maxBytes} bytes` };
      }
      pieces.push(decoder.decode(buf, { stream: true }));
    }
    pieces.push(decoder.decode());
  } catch {
    return { ok: false, error: "fetch failed: the connection broke while reading the playlist" };
  }
  const header = (name: string) => {
    const value = res.headers[name];
    return typeof value === "string" ? value : null;
  };
  return {
    ok: true,
    notModified: false,
    pieces,
    validators: { etag: header("etag"), lastModified: header("last-modified") },
  };
}
