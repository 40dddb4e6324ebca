import { once } from "node:events";
import { createServer, request as httpRequest, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";

/**
 * Test-side forward proxies on 127.0.0.1, written here so the gateway's proxy support is
 * checked against independent implementations of the protocols. They only ever dial
 * loopback targets, and count what they carried.
 */
export interface LoopbackProxy {
  readonly port: number;
  /** `host:port` of every request (HTTP) or CONNECT/SOCKS destination carried, in order. */
  readonly carried: string[];
  /** Attempts refused for credentials. */
  authFailures: number;
  /** Bytes relayed from targets back to the client (a SOCKS or CONNECT tunnel is one connection). */
  readonly relayed: number;
  close(): Promise<void>;
}

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

function trackSockets(server: Server | ReturnType<typeof createTcpServer>): () => void {
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  return () => {
    for (const s of sockets) s.destroy();
  };
}

const LOOPBACK = /^127\.\d+\.\d+\.\d+$|^localhost$|^\[::1\]$|^::1$/;

/**
 * An HTTP/1.1 forward proxy (RFC 9110 9.3.6 CONNECT, RFC 9112 3.2.2 absolute-form). With
 * `credentials` it demands `Proxy-Authorization: Basic` and answers 407 otherwise. With
 * `tls` it is an `https` proxy: clients speak TLS to the proxy itself (node:https), then the
 * same absolute-form requests and CONNECT inside that TLS connection.
 */
export async function startHttpProxy(
  credentials?: { user: string; pass: string },
  options: { tls?: { key: Buffer; cert: Buffer } } = {},
): Promise<LoopbackProxy> {
  const expected =
    credentials === undefined
      ? undefined
      : `Basic ${Buffer.from(`${credentials.user}:${credentials.pass}`).toString("base64")}`;
  const state = { carried: [] as string[], authFailures: 0, relayed: 0 };
  const allowed = (header: string | undefined) => expected === undefined || header === expected;
  const handler: RequestListener = (req, res) => {
    if (!allowed(req.headers["proxy-authorization"])) {
      state.authFailures++;
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"', "content-length": 0 }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (!LOOPBACK.test(target.hostname)) {
      res.writeHead(403).end();
      return;
    }
    state.carried.push(target.host);
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.on("data", (c: Buffer) => {
          state.relayed += c.length;
        });
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  };
  const server: Server | HttpsServer =
    options.tls === undefined ? createServer(handler) : createHttpsServer(options.tls, handler);
  server.on("connect", (req, client: Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    if (!allowed(req.headers["proxy-authorization"] as string | undefined)) {
      state.authFailures++;
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n',
      );
      return;
    }
    const m = /^(.+):(\d+)$/.exec(req.url ?? "");
    if (m === null || !LOOPBACK.test(m[1]!)) {
      client.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    state.carried.push(req.url!);
    const upstream = connect(Number(m[2]), m[1]!.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.on("data", (c: Buffer) => {
        state.relayed += c.length;
      });
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });
  const cut = trackSockets(server);
  const port = await listen(server);
  return {
    port,
    get carried() {
      return state.carried;
    },
    get relayed() {
      return state.relayed;
    },
    get authFailures() {
      return state.authFailures;
    },
    set authFailures(n) {
      state.authFailures = n;
    },
    async close() {
      cut();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A SOCKS5 proxy (RFC 1928, CONNECT only) with optional user/password auth (RFC 1929).
 * `rejectAll` refuses every credential. Destinations may be IPv4 or domain names (socks5h);
 * a domain is resolved by mapping `localhost` and 127.x literals only.
 */
export async function startSocks5Proxy(
  options: { credentials?: { user: string; pass: string }; rejectAll?: boolean } = {},
): Promise<LoopbackProxy> {
  const state = { carried: [] as string[], authFailures: 0, relayed: 0 };
  const needAuth = options.credentials !== undefined || options.rejectAll === true;
  const server = createTcpServer((client) => {
    client.on("error", () => client.destroy());
    let buf = Buffer.alloc(0);
    let stage: "greeting" | "auth" | "request" | "done" = "greeting";
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (stage === "greeting") {
          if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
          const methods = [...buf.subarray(2, 2 + buf[1]!)];
          buf = buf.subarray(2 + buf[1]!);
          const method = needAuth ? 0x02 : 0x00;
          if (!methods.includes(method)) {
            client.end(Buffer.from([5, 0xff]));
            stage = "done";
            return;
          }
          client.write(Buffer.from([5, method]));
          stage = needAuth ? "auth" : "request";
        } else if (stage === "auth") {
          if (buf.length < 2) return;
          const ulen = buf[1]!;
          if (buf.length < 3 + ulen) return;
          const plen = buf[2 + ulen]!;
          if (buf.length < 3 + ulen + plen) return;
          const user = buf.subarray(2, 2 + ulen).toString();
          const pass = buf.subarray(3 + ulen, 3 + ulen + plen).toString();
          buf = buf.subarray(3 + ulen + plen);
          const ok =
            !options.rejectAll &&
            options.credentials !== undefined &&
            user === options.credentials.user &&
            pass === options.credentials.pass;
          if (!ok) {
            state.authFailures++;
            client.end(Buffer.from([1, 1]));
            stage = "done";
            return;
          }
          client.write(Buffer.from([1, 0]));
          stage = "request";
        } else if (stage === "request") {
          if (buf.length < 5) return;
          const atyp = buf[3]!;
          let host: string;
          let offset: number;
          if (atyp === 1) {
            if (buf.length < 10) return;
            host = [...buf.subarray(4, 8)].join(".");
            offset = 8;
          } else if (atyp === 3) {
            const len = buf[4]!;
            if (buf.length < 5 + len + 2) return;
            host = buf.subarray(5, 5 + len).toString();
            offset = 5 + len;
          } else {
            client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
            stage = "done";
            return;
          }
          const port = buf.readUInt16BE(offset);
          const rest = buf.subarray(offset + 2);
          stage = "done";
          client.off("data", onData);
          if (!LOOPBACK.test(host)) {
            client.end(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
            return;
          }
          state.carried.push(`${host}:${port}`);
          const upstream = connect(port, host === "localhost" ? "127.0.0.1" : host, () => {
            client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
            if (rest.length > 0) upstream.write(rest);
            upstream.on("data", (c: Buffer) => {
              state.relayed += c.length;
            });
            upstream.pipe(client);
            client.pipe(upstream);
          });
          upstream.on("error", () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
          client.on("close", () => upstream.destroy());
          return;
        } else return;
      }
    };
    client.on("data", onData);
  });
  const cut = trackSockets(server);
  const port = await listen(server);
  return {
    port,
    get carried() {
      return state.carried;
    },
    get relayed() {
      return state.relayed;
    },
    get authFailures() {
      return state.authFailures;
    },
    set authFailures(n) {
      state.authFailures = n;
    },
    async close() {
      cut();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
