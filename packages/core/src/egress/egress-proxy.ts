import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type SecureContext, TLSSocket } from "node:tls";
import type { buildConnector, Dispatcher } from "undici";
import { createGuardedAgent, type EgressTimeouts } from "./egress-client.js";
import { defaultEgressRoutes, dispatcherFor, type EgressRoutes } from "./egress-routes.js";
import type { Resolver } from "./guarded-connector.js";
import { dialPort } from "./host-allowlist.js";
import { interceptionContext } from "./interception-cert.js";
import { owningProcess, type ProcessIdentity, processIdentity } from "./peer-process.js";
import { ProxyFailure } from "./proxy-failure.js";
import { type AddedHeaders, answer, type BodyRewrite, relayRequest } from "./proxy-relay.js";
import { openTunnel, parseAuthority, rawAnswer } from "./proxy-tunnel.js";

export interface EgressProxyOptions {
  /** `security.allowed_hosts`: the same exemptions as {@link createEgress}. */
  readonly allowedHosts: readonly string[];
  readonly timeouts: EgressTimeouts;
  /** Replaces the system resolver (unit tests resolve names to literals without DNS). */
  readonly resolve?: Resolver;
  /** Client connections at once (tunnels included); more are closed on accept. Default 256. */
  readonly maxConnections?: number;
  /** The gateway's routing state: ffmpeg's requests take the same routes as its own. */
  readonly routes?: EgressRoutes;
}

/** What one admitted process may do through the proxy. */
export interface ProxyGrant {
  /** The channel the process works for: its egress binding and `channel_id` rules apply. */
  readonly channelId?: string;
  /**
   * Request headers the proxy adds to every request of that process (the channel's
   * `headers` and user agent), so they never sit on its command line. Sensitive names
   * (spec "Channel") go only to `origin`.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Origin of the channel source (`URL.origin`), the one that receives sensitive headers. */
  readonly origin?: string;
  /**
   * Told when the guard refuses a target of this process (`scheme://host:port`, never a
   * path or query): ffmpeg itself only prints "403 Forbidden", often against another URL.
   */
  readonly onRefused?: (target: string, reason: string) => void;
  /**
   * Rewrites every 200 body this process receives (asked for whole: `Range` is not
   * forwarded); https targets are then always terminated here, never tunnelled.
   */
  readonly rewrite?: BodyRewrite;
}

/** A running loopback proxy. */
export interface EgressProxy {
  /** `http://127.0.0.1:PORT`, for ffmpeg's `-http_proxy`: no secret in it. */
  readonly url: string;
  readonly port: number;
  /**
   * Lets the live process `pid` (a child just spawned) use the proxy with `grant`, until
   * the returned revoke is called (when that process exits). A process that has already
   * gone is not admitted.
   */
  admit(pid: number, grant?: ProxyGrant): () => void;
  /** Stops listening and cuts every open connection and tunnel. */
  close(): Promise<void>;
}

interface Admitted extends ProcessIdentity {
  readonly channelId: string | undefined;
  readonly added: AddedHeaders;
  readonly intercept: boolean;
  readonly onRefused: ((target: string, reason: string) => void) | undefined;
  readonly rewrite: BodyRewrite | undefined;
}

const NOT_ADMITTED = "not a process this gateway started";

/**
 * A forward proxy on 127.0.0.1 that holds the tools the gateway spawns (ffmpeg) to the
 * egress guard: an absolute-form `GET`/`HEAD http://…` is relayed through the guarded
 * connector, a `CONNECT host:port` (ffmpeg's way to `https://`) becomes a tunnel to the
 * checked address; a refused target gets 403 and no connection is opened for it.
 *
 * There is no credential to steal (issue 12 item 6): a connection is served only when its
 * client end belongs to a process {@link EgressProxy.admit}ted and still alive, which the
 * kernel tells (`/proc`, see peer-process.ts); any other local process gets 407. The
 * admitted process's grant adds the channel's headers on the way out. For `https://` with
 * headers to add, the proxy terminates the `CONNECT` itself (a throwaway certificate, see
 * interception-cert.ts) and makes the request to the origin with its own verified TLS.
 * Other statuses: 400 malformed, 405 a method other than GET/HEAD, 502/504 upstream failures.
 *
 * @example
 * const proxy = await createEgressProxy({ allowedHosts, timeouts });
 * const child = spawn("ffmpeg", ["-http_proxy", proxy.url, …]);
 * const revoke = proxy.admit(child.pid, { headers, origin });
 * child.once("exit", revoke);
 */
export async function createEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const { agent, connect } = createGuardedAgent(options);
  const routes = options.routes ?? defaultEgressRoutes(options);
  /** The upstream leg of one request: direct through the guard, or through the chosen proxy. */
  const route = (target: URL, channelId: string | undefined) => {
    const choice = routes.choose(target, channelId === undefined ? {} : { channelId });
    if (!choice.ok) throw new ProxyFailure(choice.message, "proxy");
    return choice;
  };
  const dispatcher =
    (target: URL, channelId: string | undefined) => async (): Promise<Dispatcher> => {
      const choice = route(target, channelId);
      if ("profile" in choice) await routes.check(target.hostname, dialPort(target));
      return dispatcherFor(routes, choice, agent);
    };
  const connector = (
    authority: string,
    channelId: string | undefined,
  ): buildConnector.connector => {
    return (opts, callback) => {
      let choice: ReturnType<typeof route>;
      try {
        choice = route(new URL(`https://${authority}/`), channelId);
      } catch (err) {
        return callback(err as Error, null);
      }
      if (!("profile" in choice)) return connect(opts, callback);
      routes
        .transport(choice.profile)
        .tunnel(opts.hostname, Number(opts.port))
        .then(
          (socket) => callback(null, socket),
          (err: Error) => callback(err, null),
        );
    };
  };
  // Made on the first intercepted CONNECT, not at boot: an RSA key pair and a signature
  // cost ~0.3-0.5 s of CPU, most of the lite binary's start (issue 13 item 5), and many
  // gateways never see an https source through the ffmpeg engine.
  let secureContext: SecureContext | undefined;
  const admitted = new Map<number, Admitted>();
  const identified = new WeakMap<Socket, Promise<Admitted | undefined>>();
  const identify = (socket: Socket) => {
    let found = identified.get(socket);
    if (found === undefined) {
      found = owningProcess(socket, admitted.values());
      identified.set(socket, found);
    }
    // A grant revoked since the connection was identified no longer counts.
    return found.then((a) => (a !== undefined && admitted.get(a.pid) === a ? a : undefined));
  };
  /** Inside a terminated CONNECT: the tunnel's target and the process it serves. */
  const intercepted = new WeakMap<Socket, { authority: string; who: Admitted }>();

  const relay = (
    req: IncomingMessage,
    res: ServerResponse,
    target: URL | undefined,
    who: Admitted,
  ) => {
    if (target === undefined) return answer(res, 400, "absolute-form http:// URL required");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      return answer(res, 405, "only GET and HEAD are relayed");
    }
    if (req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0)
      return answer(res, 400, "a GET or HEAD request carries no body");
    void relayRequest(
      dispatcher(target, who.channelId),
      target,
      req,
      res,
      who.added,
      who.onRefused,
      who.rewrite,
    );
  };

  const server = createServer(async (req, res) => {
    const who = await identify(req.socket);
    if (who === undefined) return answer(res, 407, NOT_ADMITTED, "Proxy Authentication Required");
    relay(req, res, parseAbsoluteHttp(req.url ?? ""), who);
  });
  const inner = createServer((req, res) => {
    const tunnel = intercepted.get(req.socket);
    if (tunnel === undefined || !(req.url ?? "").startsWith("/"))
      return answer(res, 400, "bad request");
    relay(req, res, parseUrl(`https://${tunnel.authority}${req.url}`), tunnel.who);
  });
  server.on("connect", async (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // The server no longer watches a CONNECT socket: an unheard reset would crash the process.
    socket.on("error", () => socket.destroy());
    const who = await identify(socket);
    if (who === undefined)
      return rawAnswer(socket, 407, "Proxy Authentication Required", NOT_ADMITTED);
    if (!who.intercept)
      return openTunnel(
        connector(req.url ?? "", who.channelId),
        req.url ?? "",
        socket,
        head,
        options.timeouts.idleMs,
        who.onRefused,
      );
    const target = parseAuthority(req.url ?? "");
    if (target === undefined)
      return rawAnswer(socket, 400, "Bad Request", "malformed CONNECT target");
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) socket.unshift(head);
    secureContext ??= interceptionContext();
    const tls = new TLSSocket(socket, { isServer: true, secureContext });
    tls.on("error", () => tls.destroy());
    tls.setTimeout(options.timeouts.idleMs, () => tls.destroy());
    const host = target.hostname.includes(":") ? `[${target.hostname}]` : target.hostname;
    intercepted.set(tls, { authority: `${host}:${target.port}`, who });
    inner.emit("connection", tls);
  });
  server.on("clientError", (_err, socket) => rawAnswer(socket, 400, "Bad Request", "malformed"));
  server.maxConnections = options.maxConnections ?? 256;
  // Tunnels leave the server's own bookkeeping: every socket is tracked for close().
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    admit(pid, grant = {}) {
      const identity = processIdentity(pid);
      if (identity === undefined) return () => undefined;
      const headers = grant.headers ?? {};
      const entry: Admitted = {
        ...identity,
        channelId: grant.channelId,
        added: { headers, origin: grant.origin },
        intercept: Object.keys(headers).length > 0 || grant.rewrite !== undefined,
        onRefused: grant.onRefused,
        rewrite: grant.rewrite,
      };
      admitted.set(pid, entry);
      return () => {
        if (admitted.get(pid) === entry) admitted.delete(pid);
      };
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
      await agent.destroy();
      if (options.routes === undefined) await routes.close();
    },
  };
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function parseAbsoluteHttp(target: string): URL | undefined {
  return /^http:\/\//i.test(target) ? parseUrl(target) : undefined;
}
