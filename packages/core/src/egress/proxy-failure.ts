import { hasErrorCode } from "./error-code.js";

/**
 * A failure on a proxied route that is the proxy's doing: it could not be reached, refused
 * our credentials (`proxy_auth`), or would not connect to the target. Built from fixed text
 * only: the errors of the SOCKS client carry its options, proxy password included, so they
 * are never passed on, logged or shown.
 */
export class ProxyFailure extends Error {
  readonly code = "SVC_EGRESS_PROXY";
  constructor(
    message: string,
    readonly reason: "proxy" | "proxy_auth" | "timeout",
  ) {
    super(message);
    this.name = "ProxyFailure";
  }
}

export function isProxyFailure(err: unknown): err is ProxyFailure {
  return err instanceof ProxyFailure || hasErrorCode(err, "SVC_EGRESS_PROXY");
}

/** undici's ProxyAgent reports a 407 or another refused tunnel only in its message. */
export function proxyFailureFromUndici(err: unknown): ProxyFailure | undefined {
  const message = err instanceof Error ? err.message : "";
  if (/Proxy Authentication Required|Proxy response \(407\)/.test(message))
    return new ProxyFailure("the proxy refused the credentials (407)", "proxy_auth");
  const m = /Proxy response \((\d{3})\)/.exec(message);
  if (m !== null) return new ProxyFailure(`the proxy refused the tunnel (${m[1]})`, "proxy");
  return undefined;
}
