import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { createEgressProxy, type EgressProxy } from "./egress-proxy.js";
import type { Resolver } from "./guarded-connector.js";

// Loopback only: the allow-listed origins listen on 127.0.0.1, the refused ones on 127.0.0.2.
const BODY = randomBytes(2 * 1024 * 1024);
const TLS_HELLO = Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]);
const fakeDns: Resolver = async (name) => {
  if (name === "origin.test" || name === "refused.test") return ["127.0.0.1"];
  throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
};

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

interface Answer {
  status: number;
  phrase: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const listen = async (server: Server | ReturnType<typeof createTcpServer>, host: string) => {
  server.listen(0, host);
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
};

describe("egress proxy", () => {
  const seen: Seen[] = [];
  let streamClosed: Promise<boolean>;
  const origin = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    if (req.url === "/big") {
      res.writeHead(200, { "content-length": BODY.length }).end(BODY);
    } else if (req.url === "/range") {
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
      const [from, to] = [Number(m?.[1]), Number(m?.[2])];
      res.writeHead(206, { "content-range": `bytes ${from}-${to}/${BODY.length}` });
      res.end(BODY.subarray(from, to + 1));
    } else if (req.url === "/endless") {
      // Writes until the proxy aborts the request; resolves true when it is cut short.
      streamClosed = new Promise((resolve) =>
        res.once("close", () => resolve(!res.writableFinished)),
      );
      const timer = setInterval(() => res.write(Buffer.alloc(16 * 1024, 7)), 10);
      res.once("close", () => clearInterval(timer));
    } else {
      res.writeHead(302, { location: "/big", connection: "close" }).end("moved");
    }
  });
  let refusedHits = 0;
  const refused = createServer((_req, res) => res.end("must not be reached"));
  refused.on("connection", () => {
    refusedHits += 1;
  });
  const echoed: Buffer[] = [];
  const echo = createTcpServer((s) =>
    s.on("data", (d) => {
      echoed.push(d);
      s.write(d);
    }),
  );
  let refusedTcpHits = 0;
  const refusedTcp = createTcpServer((s) => {
    refusedTcpHits += 1;
    s.destroy();
  });
  let originPort = 0;
  let refusedPort = 0;
  let echoPort = 0;
  let refusedTcpPort = 0;
  let proxy: EgressProxy;
  let auth = "";

  before(async () => {
    originPort = await listen(origin, "127.0.0.1");
    refusedPort = await listen(refused, "127.0.0.2");
    echoPort = await listen(echo, "127.0.0.1");
    refusedTcpPort = await listen(refusedTcp, "127.0.0.2");
    proxy = await createEgressProxy({
      allowedHosts: ["127.0.0.1", "origin.test"],
      timeouts: { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000 },
      resolve: fakeDns,
    });
    const u = new URL(proxy.url);
    auth = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;
  });
  after(async () => {
    await proxy.close();
    for (const s of [origin, refused]) s.closeAllConnections();
    for (const s of [origin, refused, echo, refusedTcp]) s.close();
  });

  function viaProxy(
    path: string,
    opts: { method?: string; headers?: Record<string, string>; credential?: string | null } = {},
  ): Promise<Answer> {
    const credential = opts.credential === undefined ? auth : opts.credential;
    return new Promise((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: proxy.port,
        path,
        method: opts.method ?? "GET",
        agent: false,
        headers: { ...opts.headers, ...(credential ? { "proxy-authorization": credential } : {}) },
      });
      req.once("error", reject);
      req.once("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.once("error", reject);
        res.once("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            phrase: res.statusMessage ?? "",
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      });
      req.end();
    });
  }

  /** CONNECT through the proxy; resolves with the proxy's status and the socket. */
  function tunnel(target: string, credential: string | null = auth) {
    return new Promise<{ status: number; phrase: string; socket: Socket }>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: proxy.port,
        method: "CONNECT",
        path: target,
        agent: false,
        headers: credential ? { "proxy-authorization": credential } : {},
      });
      req.once("error", reject);
      req.once("connect", (res, socket: Socket) =>
        resolve({ status: res.statusCode ?? 0, phrase: res.statusMessage ?? "", socket }),
      );
      req.end();
    });
  }

  it("relays a 2 MiB body byte for byte from an allow-listed loopback host", async () => {
    for (const host of [`127.0.0.1:${originPort}`, `origin.test:${originPort}`]) {
      const r = await viaProxy(`http://${host}/big`, { headers: { "user-agent": "SVC/1" } });
      assert.equal(r.status, 200);
      assert.equal(r.headers["content-length"], String(BODY.length));
      assert.ok(r.body.equals(BODY), host);
      const last = seen.at(-1)!;
      assert.equal(last.headers.host, host);
      assert.equal(last.headers["user-agent"], "SVC/1");
      assert.equal(last.headers["proxy-authorization"], undefined, "the credential stays here");
    }
  });

  it("forwards Range and answers 206 with the slice; HEAD carries no body", async () => {
    const r = await viaProxy(`http://127.0.0.1:${originPort}/range`, {
      headers: { range: "bytes=1000-1999" },
    });
    assert.equal(r.status, 206);
    assert.equal(r.headers["content-range"], `bytes 1000-1999/${BODY.length}`);
    assert.ok(r.body.equals(BODY.subarray(1000, 2000)));
    assert.equal(seen.at(-1)!.headers.range, "bytes=1000-1999");
    const head = await viaProxy(`http://127.0.0.1:${originPort}/big`, { method: "HEAD" });
    assert.deepEqual([head.status, head.body.length], [200, 0]);
    assert.equal(head.headers["content-length"], String(BODY.length));
  });

  it("answers a redirect as it is, so the next hop comes back through the guard", async () => {
    const r = await viaProxy(`http://127.0.0.1:${originPort}/moved`);
    assert.deepEqual([r.status, r.headers.location, r.body.toString()], [302, "/big", "moved"]);
  });

  it("refuses a host outside the allowlist with 403 and never connects to it", async () => {
    const before = seen.length;
    const byAddress = await viaProxy(`http://127.0.0.2:${refusedPort}/x`);
    assert.equal(byAddress.status, 403);
    assert.equal(byAddress.phrase, "Forbidden (egress guard: target address is loopback)");
    assert.equal(byAddress.body.toString(), "target address is loopback\n");
    // The allowlist names hosts: a name that resolves to an allowed address is still refused.
    const byName = await viaProxy(`http://refused.test:${originPort}/big`);
    assert.equal(byName.status, 403);
    assert.equal(refusedHits, 0);
    assert.equal(seen.length, before);
  });

  it("asks for the credential (407) and relays nothing without it", async () => {
    const before = seen.length;
    const wrong = `Basic ${Buffer.from("egress:guess").toString("base64")}`;
    for (const credential of [null, wrong, `${auth}x`, auth.replace("Basic", "Bearer")]) {
      const r = await viaProxy(`http://127.0.0.1:${originPort}/big`, { credential });
      assert.equal(r.status, 407, String(credential));
      assert.equal(r.headers["proxy-authenticate"], 'Basic realm="egress"');
      const t = await tunnel(`127.0.0.1:${echoPort}`, credential);
      assert.equal(t.status, 407);
      t.socket.destroy();
    }
    assert.equal(seen.length, before);
    assert.equal(echoed.length, 0);
  });

  it("answers 405 to other methods and 400 to requests that are not absolute http://", async () => {
    const before = seen.length;
    const post = await viaProxy(`http://127.0.0.1:${originPort}/big`, { method: "POST" });
    assert.deepEqual([post.status, post.headers.allow], [405, "GET, HEAD"]);
    for (const path of ["/big", `ftp://127.0.0.1:${originPort}/big`, "file:///etc/hostname"])
      assert.equal((await viaProxy(path)).status, 400, path);
    assert.equal(seen.length, before);
  });

  it("aborts the upstream request when its client goes away", async () => {
    await new Promise<void>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: proxy.port,
        path: `http://127.0.0.1:${originPort}/endless`,
        agent: false,
        headers: { "proxy-authorization": auth },
      });
      req.once("error", () => undefined);
      req.once("response", (res) =>
        res.once("data", () => {
          req.destroy();
          resolve();
        }),
      );
      req.once("timeout", reject);
      req.end();
    });
    const cut = await Promise.race([
      streamClosed,
      new Promise<string>((r) => setTimeout(() => r("still streaming"), 3_000)),
    ]);
    assert.equal(cut, true);
  });

  it("tunnels CONNECT to an allow-listed loopback port, bytes both ways", async () => {
    const t = await tunnel(`127.0.0.1:${echoPort}`);
    assert.equal(t.status, 200);
    t.socket.write(TLS_HELLO);
    const back = await new Promise<Buffer>((resolve) => {
      const got: Buffer[] = [];
      t.socket.on("data", (d: Buffer) => {
        got.push(d);
        if (Buffer.concat(got).length >= TLS_HELLO.length) resolve(Buffer.concat(got));
      });
    });
    assert.ok(back.equals(TLS_HELLO));
    t.socket.destroy();
  });

  it("closes a tunnel whose first bytes are not a TLS handshake, relaying nothing", async () => {
    const before = echoed.length;
    const t = await tunnel(`127.0.0.1:${echoPort}`);
    assert.equal(t.status, 200);
    t.socket.write("EHLO x\r\n");
    t.socket.resume();
    await once(t.socket, "close");
    assert.equal(echoed.length, before);
  });

  it("refuses CONNECT to a host outside the allowlist and to malformed targets", async () => {
    const t = await tunnel(`127.0.0.2:${refusedTcpPort}`);
    assert.deepEqual(
      [t.status, t.phrase],
      [403, "Forbidden (egress guard: target address is loopback)"],
    );
    t.socket.destroy();
    for (const target of ["127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "u@h:443", "[zz]:443"]) {
      const bad = await tunnel(target);
      assert.equal(bad.status, 400, target);
      bad.socket.destroy();
    }
    assert.equal(refusedTcpHits, 0);
  });

  it("listens on 127.0.0.1 with its own credential, caps connections, close() cuts tunnels", async () => {
    const own = await createEgressProxy({
      allowedHosts: ["127.0.0.1"],
      timeouts: { connectMs: 1_000, firstByteMs: 1_000, idleMs: 10_000 },
      maxConnections: 1,
    });
    assert.match(own.url, /^http:\/\/[0-9a-f]{16}:[0-9a-f]{48}@127\.0\.0\.1:\d+$/);
    assert.notEqual(own.url, proxy.url);
    const u = new URL(own.url);
    const credential = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;
    const open = (method: string, path: string) => {
      const req = request({
        host: "127.0.0.1",
        port: own.port,
        method,
        path,
        agent: false,
        headers: { "proxy-authorization": credential },
      });
      req.end();
      return req;
    };
    const [, socket] = (await once(open("CONNECT", `127.0.0.1:${echoPort}`), "connect")) as [
      unknown,
      Socket,
    ];
    // The tunnel holds the only connection: the next one is dropped unanswered.
    const second = open("GET", `http://127.0.0.1:${originPort}/big`);
    const [err] = (await once(second, "error")) as [NodeJS.ErrnoException];
    assert.match(String(err.code), /ECONNRESET|EPIPE/);
    const closed = once(socket, "close");
    await own.close();
    await closed;
  });
});
