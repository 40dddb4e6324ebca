import { isIP, type Socket } from "node:net";
import { SocksClient } from "socks";
import { Agent, buildConnector, Client, type Dispatcher, Pool, ProxyAgent } from "undici";
import { stripBrackets } from "./address-policy.js";
import type { EgressTimeouts } from "./egress-client.js";
import { ProxyFailure, proxyFailureFromUndici } from "./proxy-failure.js";
import type { ProxyProfile } from "./routing-document.js";
import { isTlsFailureCode } from "./tls-failure.js";

/** Resolves and checks a target host (the egress guard); returns its addresses. */
export type TargetCheck = (host: string, port?: number) => Promise<readonly string[]>;

/** How one proxy profile carries requests (the gateway's own) and tunnels (ffmpeg's CONNECT). */
export interface ProxyTransport {
  readonly dispatcher: Dispatcher;
  /** A raw TCP connection to `host:port` through the proxy, after the target check. */
  tunnel(host: string, port: number): Promise<Socket>;
  close(): Promise<void>;
}

export interface TransportOptions {
  readonly timeouts: EgressTimeouts;
  readonly check: TargetCheck;
  /**
   * `egress.docker_proxy_host` when the gateway runs in a container, else "": a profile that
   * names `localhost` means the container's host, which is reached under this name.
   */
  readonly dockerProxyHost: string;
}

/**
 * The transport of one profile. HTTP(S) proxies: undici's ProxyAgent (absolute-form for
 * `http://` targets, `CONNECT` for `https://`), credentials from the profile URL sent as
 * `Proxy-Authorization: Basic`. SOCKS5: the `socks` client behind an undici Agent connector
 * (RFC 1928, user/password RFC 1929). `socks5` hands the proxy the address checked here;
 * `socks5h` hands it the name (the proxy resolves it) after the same check of the local
 * resolution. The target is always checked here before the proxy is asked to connect.
 */
export function createProxyTransport(
  profile: ProxyProfile,
  options: TransportOptions,
): ProxyTransport {
  const proxy = effectiveProxyUrl(profile.url, options.dockerProxyHost);
  const scheme = proxy.protocol.slice(0, -1);
  return scheme === "socks5" || scheme === "socks5h"
    ? socksTransport(proxy, scheme === "socks5h", options)
    : httpTransport(proxy, options);
}

function httpTransport(proxy: URL, options: TransportOptions): ProxyTransport {
  const { timeouts } = options;
  const dispatcher = new ProxyAgent({
    uri: proxy.href,
    // Plain http:// targets go absolute-form (RFC 9112 3.2.2), as every forward proxy takes
    // them; only https:// needs a tunnel.
    proxyTunnel: false,
    proxyTls: { timeout: timeouts.connectMs },
    requestTls: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    // undici's default client to the proxy, with its connector wrapped: a failed TLS handshake
    // with an `https` proxy is the proxy's (`proxy`), not the target's `tls`.
    clientFactory: (origin, opts) => {
      const { connect } = opts as { connect: buildConnector.connector };
      return new Pool(origin, { ...opts, connect: proxyConnector(connect) });
    },
  });
  const auth = basicAuth(proxy);
  const origin = `${proxy.protocol}//${proxy.host}`;
  return {
    dispatcher,
    async tunnel(host, port) {
      await options.check(host, port);
      const authority = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
      const client = new Client(origin, { connect: { timeout: timeouts.connectMs } });
      try {
        const { socket, statusCode } = await client.connect({
          path: authority,
          headers: { host: authority, ...(auth ? { "proxy-authorization": auth } : {}) },
        });
        if (statusCode === 200) return socket as Socket;
        socket.destroy();
        throw statusCode === 407
          ? new ProxyFailure("the proxy refused the credentials (407)", "proxy_auth")
          : new ProxyFailure(`the proxy refused the tunnel (${statusCode})`, "proxy");
      } catch (err) {
        throw proxyFailureFromUndici(err) ?? asProxyFailure(err);
      } finally {
        void client.close().catch(() => undefined);
      }
    },
    close: () => dispatcher.close(),
  };
}

function socksTransport(proxy: URL, remoteDns: boolean, options: TransportOptions): ProxyTransport {
  const { timeouts } = options;
  const userId = proxy.username === "" ? undefined : decodeURIComponent(proxy.username);
  const password = proxy.password === "" ? undefined : decodeURIComponent(proxy.password);
  const tls = buildConnector({ timeout: timeouts.connectMs });
  const tunnel = async (host: string, port: number): Promise<Socket> => {
    const addresses = await options.check(host, port);
    const destination = remoteDns || isIP(host) !== 0 ? host : addresses[0]!;
    try {
      const { socket } = await SocksClient.createConnection({
        proxy: {
          host: stripBrackets(proxy.hostname),
          port: Number(proxy.port) || 1080,
          type: 5,
          ...(userId === undefined ? {} : { userId, password: password ?? "" }),
        },
        command: "connect",
        destination: { host: destination, port },
        timeout: timeouts.connectMs,
      });
      return socket;
    } catch (err) {
      throw socksFailure(err);
    }
  };
  const connect: buildConnector.connector = (opts, callback) => {
    const host = stripBrackets(opts.hostname);
    const port = Number(opts.port) || (opts.protocol === "https:" ? 443 : 80);
    tunnel(host, port).then(
      (socket) => {
        if (opts.protocol !== "https:") return callback(null, socket);
        // TLS to the target inside the tunnel, SNI on the target's name.
        const servername = opts.servername ?? (isIP(host) === 0 ? host : undefined);
        tls({ ...opts, httpSocket: socket, ...(servername ? { servername } : {}) }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
  const dispatcher = new Agent({
    connect,
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 4_000,
  });
  return { dispatcher, tunnel, close: () => dispatcher.close() };
}

/**
 * True for a profile host that `docker_proxy_host` stands in for inside a container
 * (docs/egress.md "Containers"): such a profile's credentials go wherever that setting points.
 */
export function isDockerRewritable(hostname: string): boolean {
  const host = stripBrackets(hostname).toLowerCase();
  return host === "localhost" || host === "127.0.0.1" || host === "::1";
}

/** The profile URL with `docker_proxy_host` in place of a loopback host (docs/egress.md). */
export function effectiveProxyUrl(url: string, dockerProxyHost: string): URL {
  const u = new URL(url);
  if (dockerProxyHost !== "" && isDockerRewritable(u.hostname)) u.hostname = dockerProxyHost;
  return u;
}

function basicAuth(proxy: URL): string | undefined {
  if (proxy.username === "") return undefined;
  const pair = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(pair).toString("base64")}`;
}

/** Fixed text per SOCKS failure; the client's own error (which holds the password) is dropped. */
function socksFailure(err: unknown): Error {
  const message = err instanceof Error ? err.message : "";
  if (message.includes("Authentication failed") || message.includes("no accepted authentication"))
    return new ProxyFailure("the SOCKS proxy refused the credentials", "proxy_auth");
  if (message.includes("timed out"))
    return new ProxyFailure("the SOCKS proxy did not answer in time", "timeout");
  if (message.includes("rejected connection"))
    return new ProxyFailure("the SOCKS proxy could not connect to the target", "proxy");
  return new ProxyFailure("the SOCKS proxy could not be reached", "proxy");
}

/** The connector to the proxy itself, its TLS failures reported as the proxy's. */
function proxyConnector(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (err, socket) => {
      const code = (err as { code?: unknown } | null)?.code;
      if (err !== null && isTlsFailureCode(code))
        callback(new ProxyFailure(`TLS handshake with the proxy failed (${code})`, "proxy"), null);
      else if (err !== null) callback(err, null);
      else callback(null, socket);
    });
}

function asProxyFailure(err: unknown): Error {
  if (err instanceof ProxyFailure) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "UND_ERR_CONNECT_TIMEOUT")
    return new ProxyFailure("the proxy did not answer in time", "timeout");
  return new ProxyFailure(
    `the proxy could not be reached${typeof code === "string" ? ` (${code})` : ""}`,
    "proxy",
  );
}
