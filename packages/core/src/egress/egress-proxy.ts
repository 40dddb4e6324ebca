import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { buildConnector, Dispatcher } from "undici";
import { createGuardedAgent, type EgressTimeouts } from "./egress-client.js";
import { createEgressRoutes, dispatcherFor, type EgressRoutes } from "./egress-routes.js";
import type { Resolver } from "./guarded-connector.js";
import { createHostAllowlist, dialPort } from "./host-allowlist.js";
import { ProxyFailure } from "./proxy-failure.js";
import { answer, relayRequest } from "./proxy-relay.js";
import { openTunnel, rawAnswer } from "./proxy-tunnel.js";

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

/** A running loopback proxy. */
export interface EgressProxy {
  /**
   * `http://USER:PASS@127.0.0.1:PORT`, for ffmpeg's `-http_proxy`. It carries the
   * credential: never log it (ffmpeg-args' `describeArgs` redacts it).
   */
  readonly url: string;
  /** {@link url} for one channel: its egress binding and `channel_id` rules then apply. */
  urlFor(channelId: string): string;
  readonly port: number;
  /** Stops listening and cuts every open connection and tunnel. */
  close(): Promise<void>;
}

const REALM = 'Basic realm="egress"';

/**
 * A forward proxy on 127.0.0.1 that holds the tools the gateway spawns (ffmpeg) to the
 * egress guard: an absolute-form `GET`/`HEAD http://…` is relayed through the guarded
 * connector, a `CONNECT host:port` (ffmpeg's way to `https://`) becomes a tunnel to the
 * checked address; a refused target gets 403 and no connection is opened for it.
 *
 * Only loopback peers can reach it, and only with this process's random credential
 * (`Proxy-Authorization: Basic`, RFC 9110 11.7.1): ffmpeg sends it after a 407 carrying
 * `Proxy-Authenticate`, never up front. Other statuses: 400 malformed, 405 a method other
 * than GET/HEAD, 502/504 upstream failures.
 *
 * @example
 * const proxy = await createEgressProxy({ allowedHosts, timeouts });
 * buildFfmpegArgs({ url, httpProxy: proxy.url }, dir, run);
 * await proxy.close();
 */
export async function createEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const user = randomBytes(8).toString("hex");
  const pass = randomBytes(24).toString("hex");
  const { agent, connect } = createGuardedAgent(options);
  const routes =
    options.routes ??
    createEgressRoutes({
      allowlist: createHostAllowlist(options.allowedHosts),
      timeouts: options.timeouts,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
  // The channel rides in the user name (`<user>.<base64url id>`): the password is the secret.
  const authorized = (req: IncomingMessage) =>
    credentialMatches(req.headers["proxy-authorization"], user, pass);
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

  const server = createServer((req, res) => {
    const channel = authorized(req);
    if (channel === false) {
      res.writeHead(407, { "proxy-authenticate": REALM, "content-length": 0 });
      return void res.end();
    }
    const target = parseAbsoluteHttp(req.url ?? "");
    if (target === undefined) return answer(res, 400, "absolute-form http:// URL required");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      return answer(res, 405, "only GET and HEAD are relayed");
    }
    if (req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"]) > 0)
      return answer(res, 400, "a GET or HEAD request carries no body");
    void relayRequest(dispatcher(target, channel), target, req, res);
  });
  server.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // The server no longer watches a CONNECT socket: an unheard reset would crash the process.
    socket.on("error", () => socket.destroy());
    const channel = authorized(req);
    if (channel === false)
      return rawAnswer(socket, 407, "Proxy Authentication Required", "", REALM);
    const authority = req.url ?? "";
    openTunnel(connector(authority, channel), authority, socket, head, options.timeouts.idleMs);
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
    url: `http://${user}:${pass}@127.0.0.1:${port}`,
    urlFor: (channelId) =>
      `http://${user}.${Buffer.from(channelId).toString("base64url")}:${pass}@127.0.0.1:${port}`,
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
      await agent.destroy();
      if (options.routes === undefined) await routes.close();
    },
  };
}

/**
 * RFC 7617: `Basic <base64(user:pass)>`, scheme case-insensitive, the password compared in
 * constant time. Answers false when it does not match, else the channel id the user name
 * carries (undefined for the bare user name).
 */
function credentialMatches(
  header: string | undefined,
  user: string,
  pass: string,
): string | undefined | false {
  const m = /^basic +(\S+)\s*$/i.exec(header ?? "");
  if (m === null) return false;
  const raw = Buffer.from(m[1]!, "base64");
  // Node's decoder skips what is not base64: only a canonical encoding counts.
  if (raw.toString("base64") !== m[1]) return false;
  const pair = raw.toString("utf8");
  const colon = pair.indexOf(":");
  if (colon === -1) return false;
  const got = Buffer.from(pair.slice(colon + 1));
  const want = Buffer.from(pass);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return false;
  const name = pair.slice(0, colon);
  if (name === user) return undefined;
  if (!name.startsWith(`${user}.`)) return false;
  return Buffer.from(name.slice(user.length + 1), "base64url").toString("utf8");
}

function parseAbsoluteHttp(target: string): URL | undefined {
  if (!/^http:\/\//i.test(target)) return undefined;
  try {
    return new URL(target);
  } catch {
    return undefined;
  }
}
