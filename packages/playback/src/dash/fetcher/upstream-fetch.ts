import type { Readable } from "node:stream";
import type { Egress } from "@svc/core/egress";
import { readBodyCapped } from "@svc/core/egress";

/** What every upstream request of one channel carries (its `headers` and `user_agent`). */
export interface FetchContext {
  readonly egress: Egress;
  readonly channelId: string;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The channel source's origin: the only one its sensitive headers go to (issue 12
   * item 4). Unset: the origin of each URL fetched (for a fetch of the source itself).
   */
  readonly credentialOrigin?: string;
  /** Aborts every request of the session at once (session stop). */
  readonly signal: AbortSignal;
}

/** Expected failures of an upstream fetch, as values. `status`: the origin answered non-2xx. */
export type FetchFailure =
  | {
      readonly ok: false;
      readonly kind: "status";
      readonly status: number;
      readonly message: string;
    }
  | { readonly ok: false; readonly kind: "too_large"; readonly message: string }
  | {
      readonly ok: false;
      readonly kind:
        | "refused"
        | "network"
        | "timeout"
        | "aborted"
        | "invalid_url"
        | "too_many_redirects";
      readonly message: string;
    };

/** A 2xx answer: the URL it came from after redirects, and its headers. */
interface Answered {
  readonly ok: true;
  readonly url: string;
  readonly headers: Record<string, unknown>;
}

export type FetchBytesResult = (Answered & { readonly bytes: Buffer }) | FetchFailure;

export type FetchStreamResult =
  | (Answered & {
      readonly body: Readable;
      /** Aborts at the deadline or when the session stops. */
      readonly signal: AbortSignal;
      readonly done: () => void;
    })
  | FetchFailure;

/**
 * Opens a GET through the one egress module with the channel's headers. The whole
 * request, body included, is bounded by `deadlineMs` on top of egress's own connect,
 * first-byte and idle timeouts, so a source that trickles forever cannot hold a fetch.
 * The caller must call `done()` after consuming the body.
 */
export async function openUpstream(
  ctx: FetchContext,
  url: string,
  deadlineMs: number,
): Promise<FetchStreamResult> {
  const abort = new AbortController();
  const onStop = () => abort.abort();
  ctx.signal.addEventListener("abort", onStop, { once: true });
  const timer = setTimeout(() => abort.abort(), deadlineMs);
  const done = () => {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onStop);
  };
  if (ctx.signal.aborted) abort.abort();
  const r = await ctx.egress.request(url, {
    headers: ctx.headers,
    signal: abort.signal,
    channelId: ctx.channelId,
    ...(ctx.credentialOrigin === undefined ? {} : { credentialOrigin: ctx.credentialOrigin }),
  });
  if (!r.ok) {
    done();
    const kind = r.kind === "aborted" && !ctx.signal.aborted ? "timeout" : r.kind;
    return { ok: false, kind, message: r.message };
  }
  if (r.status < 200 || r.status > 299) {
    r.body.dump().catch(() => undefined);
    done();
    return {
      ok: false,
      kind: "status",
      status: r.status,
      message: `upstream answered ${r.status}`,
    };
  }
  return { ok: true, body: r.body, url: r.url, headers: r.headers, signal: abort.signal, done };
}

/** GETs a small resource (MPD, init segment, time source) whole, never more than `maxBytes`. */
export async function fetchBytes(
  ctx: FetchContext,
  url: string,
  opts: { maxBytes: number; deadlineMs: number },
): Promise<FetchBytesResult> {
  const r = await openUpstream(ctx, url, opts.deadlineMs);
  if (!r.ok) return r;
  try {
    const body = await readBodyCapped(r.body, opts.maxBytes, undefined, r.signal);
    if (!body.ok) {
      if (body.kind === "too_large")
        return { ok: false, kind: "too_large", message: `body exceeds ${opts.maxBytes} bytes` };
      const kind = body.kind === "aborted" && !ctx.signal.aborted ? "timeout" : body.kind;
      return { ok: false, kind, message: body.message };
    }
    return { ok: true, bytes: body.bytes, url: r.url, headers: r.headers };
  } finally {
    r.done();
  }
}

/**
 * "the egress guard refused host:port (why); …": names the host, never the path or
 * query (which may carry tokens), and where the exemption is configured.
 */
export function describeRefusal(url: string, why: string): string {
  let host = "the target";
  try {
    host = new URL(url).host;
  } catch {
    // an unparsable URL is named generically
  }
  return `the egress guard refused ${host} (${why}); security.allowed_hosts lists exempted hosts`;
}
