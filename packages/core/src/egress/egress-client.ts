import type { IncomingHttpHeaders } from "node:http";
import { Agent, type buildConnector, type Dispatcher } from "undici";
import { defaultEgressRoutes, type EgressRoutes, type RouteRequest } from "./egress-routes.js";
import { createGuardedConnector, type Resolver } from "./guarded-connector.js";
import { createHostAllowlist, dialPort } from "./host-allowlist.js";
import { isProxyFailure, proxyFailureFromUndici } from "./proxy-failure.js";
import type { ProxyTransport } from "./proxy-transport.js";
import { isRefusal } from "./refusal.js";
import { withoutSensitiveHeaders } from "./sensitive-headers.js";
import { isTlsFailureCode } from "./tls-failure.js";

/** Bounded waits of every outbound request (config `egress.*_timeout_ms`). */
export interface EgressTimeouts {
  /** TCP (and TLS) connect. */
  readonly connectMs: number;
  /** From the request being sent to the response headers. */
  readonly firstByteMs: number;
  /** Longest silence between two body chunks. */
  readonly idleMs: number;
}

export interface EgressOptions {
  /** `security.allowed_hosts`. */
  readonly allowedHosts: readonly string[];
  readonly timeouts: EgressTimeouts;
  /** Replaces the system resolver (unit tests resolve names to literals without DNS). */
  readonly resolve?: Resolver;
  /** The routing state; without it every request goes direct (the lite build). */
  readonly routes?: EgressRoutes;
}

export interface EgressRequestOptions {
  readonly method?: "GET" | "HEAD";
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborting it (for example on client disconnect) aborts the upstream request at once. */
  readonly signal?: AbortSignal;
  /** At most {@link MAX_REDIRECTS}; 0 answers a redirect as it is. */
  readonly maxRedirects?: number;
  /** The channel the request is made for: its egress binding and `channel_id` rules apply. */
  readonly channelId?: string;
  /** Overrides of the route decision (a draft channel's binding, a guide source, a test). */
  readonly route?: Omit<RouteRequest, "channelId">;
  /**
   * The only origin (scheme, host, port) that may receive the sensitive headers of
   * `isSensitiveHeader`: the channel source's own. Any other origin, whether the URL
   * itself or a redirect hop, gets the request without them, and so does every hop
   * after a cross-origin redirect. Unset: `url`'s origin.
   */
  readonly credentialOrigin?: string;
}

/** An upstream answered (any status). The caller must consume or `dump()` the body. */
export interface EgressResponse {
  readonly ok: true;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Dispatcher.ResponseData["body"];
  /** The URL that answered, after redirects: relative playlist URIs resolve against it. */
  readonly url: string;
  /** The route of the last hop: `direct` or the proxy profile's id. */
  readonly proxyId: string;
}

/**
 * Expected failures are values, not exceptions. `refused`: the guard refused a
 * target (callers answer 403 `forbidden`; no connection was opened for it);
 * the others are upstream failures (502 `upstream_error`).
 */
export type EgressFailureKind =
  | "refused"
  | "invalid_url"
  | "too_many_redirects"
  | "timeout"
  | "network"
  | "aborted";

export interface EgressFailure {
  readonly ok: false;
  readonly kind: EgressFailureKind;
  /** Safe to log and to show: never carries headers, query strings, bodies or proxy credentials. */
  readonly message: string;
  /** Finer cause of a `network` or `timeout` failure, for the connection test's outcome. */
  readonly cause?: FailureCause;
  /** The route that was tried, when one was chosen. */
  readonly proxyId?: string;
}

/** `dns`: the target name did not resolve; `proxy`/`proxy_auth`: the proxy's doing. */
export type FailureCause = "dns" | "tls" | "proxy" | "proxy_auth";

export type EgressResult = EgressResponse | EgressFailure;

export interface Egress {
  /**
   * GETs `url` through the guard, following up to 5 redirects, each hop checked
   * again. Never throws for network conditions; see {@link EgressFailureKind}.
   *
   * @example
   * const r = await egress.request(target, { headers: { "user-agent": ua }, signal });
   * if (!r.ok) return r.kind === "refused" ? forbidden() : badGateway();
   */
  request(url: string, options?: EgressRequestOptions): Promise<EgressResult>;
  /** The routing state this egress decides with (shared with the ffmpeg egress proxy). */
  readonly routes: EgressRoutes;
  close(): Promise<void>;
}

/**
 * The guarded connector (allowlist, address checks) and a connection pool over it with
 * the egress timeouts: what {@link createEgress} and the egress proxy for ffmpeg share.
 */
export function createGuardedAgent(
  options: Pick<EgressOptions, "allowedHosts" | "timeouts" | "resolve">,
): { agent: Agent; connect: buildConnector.connector } {
  const connect = createGuardedConnector({
    allowlist: createHostAllowlist(options.allowedHosts),
    connectTimeoutMs: options.timeouts.connectMs,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const agent = new Agent({
    connect,
    headersTimeout: options.timeouts.firstByteMs,
    bodyTimeout: options.timeouts.idleMs,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
  });
  return { agent, connect };
}

/** Issue 3: every redirect hop is checked again, at most five of them. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The one module that makes outbound HTTP requests for the whole gateway. It
 * owns the connection pool and the guarded connector; no other code calls
 * `fetch` or `http.request` on its own.
 */
export function createEgress(options: EgressOptions): Egress {
  const { agent } = createGuardedAgent(options);
  const routes = options.routes ?? defaultEgressRoutes(options);

  return {
    routes,
    async request(url, opts = {}) {
      const maxRedirects = Math.min(opts.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS);
      let current = parseHttpUrl(url);
      if (current === undefined) return failure("invalid_url", "target is not an http(s) URL");
      const all: Record<string, string> = { ...opts.headers };
      const plain = withoutSensitiveHeaders(all);
      const credentialOrigin = opts.credentialOrigin ?? current.origin;
      // Like fetch (WHATWG Fetch 4.4 step 13), a chain that crossed origins once never
      // carries the secrets again, even back on their own origin.
      let crossed = false;
      // An unsaved profile (connection test) gets its own transport, closed once answered.
      let temporary: ProxyTransport | undefined;
      const closeTemporary = () => void temporary?.close().catch(() => undefined);
      for (let hop = 0; ; hop++) {
        // Every hop is routed (and checked) again: a redirect may change host and rule.
        const choice = routes.choose(current, { ...opts.route, channelId: opts.channelId });
        if (!choice.ok) {
          closeTemporary();
          return { ...failure("network", choice.message), cause: "proxy", proxyId: choice.proxyId };
        }
        let dispatcher: Dispatcher = agent;
        const headers = !crossed && current.origin === credentialOrigin ? all : plain;
        let sent = headers;
        if ("profile" in choice) {
          try {
            // The guard still applies to the target, resolved here (docs/egress.md).
            await routes.check(current.hostname, dialPort(current));
          } catch (err) {
            closeTemporary();
            return { ...classifyError(err, opts.signal), proxyId: choice.proxyId };
          }
          if (opts.route?.profile !== undefined)
            temporary = temporary ?? routes.temporary(choice.profile);
          const transport = temporary ?? routes.transport(choice.profile);
          dispatcher = transport.dispatcher;
          // Proxy-Authorization belongs to the profile, never to a channel's headers.
          sent = withoutHeader(headers, "proxy-authorization");
        }
        let res: Dispatcher.ResponseData;
        try {
          res = await dispatcher.request({
            origin: current.origin,
            path: `${current.pathname}${current.search}`,
            method: opts.method ?? "GET",
            headers: sent,
            signal: opts.signal,
          });
        } catch (err) {
          closeTemporary();
          const f = classifyError(err, opts.signal);
          // Through a proxy, a connection that fails without a finer cause is the proxy's.
          const cause =
            "profile" in choice && f.kind === "network" ? (f.cause ?? "proxy") : f.cause;
          return { ...f, ...(cause ? { cause } : {}), proxyId: choice.proxyId };
        }
        const location = res.headers.location;
        if (
          !REDIRECT_STATUSES.has(res.statusCode) ||
          typeof location !== "string" ||
          maxRedirects === 0
        ) {
          closeTemporary();
          return {
            ok: true,
            status: res.statusCode,
            headers: res.headers,
            body: res.body,
            url: current.href,
            proxyId: choice.proxyId,
          };
        }
        res.body.dump().catch(() => undefined);
        if (hop + 1 > maxRedirects) {
          closeTemporary();
          return failure("too_many_redirects", "too many redirects");
        }
        const next = parseHttpUrl(location, current.href);
        if (next === undefined) {
          closeTemporary();
          return failure("invalid_url", "redirect to a non-http(s) URL");
        }
        if (next.origin !== current.origin) crossed = true;
        current = next;
      }
    },
    async close() {
      await routes.close();
      await agent.close();
    },
  };
}

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== name) out[k] = v;
  return out;
}

function parseHttpUrl(url: string, base?: string): URL | undefined {
  try {
    const u = new URL(url, base);
    return u.protocol === "http:" || u.protocol === "https:" ? u : undefined;
  } catch {
    return undefined;
  }
}

function failure(kind: EgressFailureKind, message: string): EgressFailure {
  return { ok: false, kind, message };
}

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NODATA", "EAI_NONAME", "EAI_FAIL"]);

/** Maps a thrown undici/system error to a result; the message never carries the URL. */
export function classifyError(err: unknown, signal?: AbortSignal): EgressFailure {
  if (isRefusal(err)) return failure("refused", err.message);
  if (signal?.aborted) return failure("aborted", "request aborted");
  const proxy = isProxyFailure(err) ? err : proxyFailureFromUndici(err);
  if (proxy !== undefined) {
    if (proxy.reason === "timeout") return failure("timeout", proxy.message);
    return { ...failure("network", proxy.message), cause: proxy.reason };
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT"
  ) {
    return failure("timeout", "upstream timed out");
  }
  if (code === "UND_ERR_ABORTED") return failure("aborted", "request aborted");
  if (typeof code === "string" && DNS_CODES.has(code))
    return { ...failure("network", `the target host does not resolve (${code})`), cause: "dns" };
  if (isTlsFailureCode(code))
    return { ...failure("network", `TLS handshake failed (${code})`), cause: "tls" };
  return failure(
    "network",
    typeof code === "string"
      ? `upstream connection failed (${code})`
      : "upstream connection failed",
  );
}
