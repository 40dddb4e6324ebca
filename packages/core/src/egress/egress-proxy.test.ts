import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
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
  let revoke: () => void = () => undefined;

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
    // This test process plays ffmpeg: its own sockets are the admitted ones.
    revoke = proxy.admit(process.pid);
  });
  after(async () => {
    await proxy.close();
    for (const s of [origin, refused]) s.closeAllConnections();
    for (const s of [origin, refused, echo, refusedTcp]) s.close();
  });

  function viaProxy(
    path: string,
    opts: { method?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: proxy.port,
        path,
        method: opts.method ?? "GET",
        agent: false,
        headers: { ...opts.headers },
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
  function tunnel(target: string) {
    return new Promise<{ status: number; phrase: string; socket: Socket }>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: proxy.port,
        method: "CONNECT",
        path: target,
        agent: false,
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

  it("serves only admitted processes: 407 to another local process and after revoke", async () => {
    const before = seen.length;
    // Another process on this machine, knowing the proxy's whole URL (there is nothing else
    // to know), is not served.
    // Async: the proxy runs in this process and must keep serving while the child asks.
    const other = await promisify(execFile)(
      process.execPath,
      [
        "-e",
        `require("http").request({host:"127.0.0.1",port:${proxy.port},path:"http://127.0.0.1:${originPort}/big"},` +
          `(r)=>{process.stdout.write(String(r.statusCode));r.resume()}).end()`,
      ],
      { timeout: 10_000 },
    );
    assert.equal(other.stdout, "407");
    revoke();
    try {
      const r = await viaProxy(`http://127.0.0.1:${originPort}/big`);
      assert.equal(r.status, 407);
      assert.equal(r.body.toString(), "not a process this gateway started\n");
      const t = await tunnel(`127.0.0.1:${echoPort}`);
      assert.equal(t.status, 407);
      t.socket.destroy();
    } finally {
      revoke = proxy.admit(process.pid);
    }
    assert.equal(seen.length, before);
    assert.equal(echoed.length, 0);
    assert.equal((await viaProxy(`http://127.0.0.1:${originPort}/big`)).status, 200);
  });

  it("adds the grant's headers; sensitive ones only to the source's origin", async () => {
    revoke();
    revoke = proxy.admit(process.pid, {
      headers: {
        Authorization: "Bearer s3cr3t",
        "X-Api-Key": "k3y",
        "User-Agent": "Chan/1",
        "X-Plain": "p",
      },
      origin: `http://127.0.0.1:${originPort}`,
    });
    try {
      await viaProxy(`http://127.0.0.1:${originPort}/range`, {
        headers: { range: "bytes=0-1", "user-agent": "Lavf/59" },
      });
      const same = seen.at(-1)!.headers;
      assert.deepEqual(
        [same.authorization, same["x-api-key"], same["user-agent"], same["x-plain"], same.range],
        ["Bearer s3cr3t", "k3y", "Chan/1", "p", "bytes=0-1"],
      );
      // Another origin (same address, another name): no sensitive header follows.
      await viaProxy(`http://origin.test:${originPort}/range`, { headers: { range: "bytes=0-1" } });
      const other = seen.at(-1)!.headers;
      assert.deepEqual(
        [other.authorization, other["x-api-key"], other["user-agent"], other["x-plain"]],
        [undefined, undefined, "Chan/1", "p"],
      );
    } finally {
      revoke();
      revoke = proxy.admit(process.pid);
    }
  });

  it("a grant's body rewrite gets the whole body (no Range upstream) and sets the length", async () => {
    revoke();
    const got: string[] = [];
    revoke = proxy.admit(process.pid, {
      rewrite: async (target, body) => {
        const chunks: Buffer[] = [];
        for await (const c of body) chunks.push(c as Buffer);
        const whole = Buffer.concat(chunks);
        got.push(`${target.pathname}:${whole.length}`);
        if (got.length > 1) return { ok: false, message: "not for this test" };
        return { ok: true, bytes: whole.subarray(0, 10) };
      },
    });
    try {
      const r = await viaProxy(`http://127.0.0.1:${originPort}/big`, {
        headers: { range: "bytes=0-", "if-range": '"x"' },
      });
      assert.equal(r.status, 200);
      assert.ok(r.body.equals(BODY.subarray(0, 10)));
      assert.equal(r.headers["content-length"], "10");
      assert.equal(seen.at(-1)!.headers.range, undefined, "the rewrite needs the whole body");
      assert.equal(seen.at(-1)!.headers["if-range"], undefined);
      assert.deepEqual(got, [`/big:${BODY.length}`]);
      const failed = await viaProxy(`http://127.0.0.1:${originPort}/big`);
      assert.equal(failed.status, 502);
      assert.equal(failed.phrase, "Bad Gateway (not for this test)");
    } finally {
      revoke();
      revoke = proxy.admit(process.pid);
    }
  });

  it("tells the grant which target the guard refused (origin only), relayed or tunnelled", async () => {
    revoke();
    const refusals: string[] = [];
    revoke = proxy.admit(process.pid, {
      onRefused: (target, reason) => refusals.push(`${target} ${reason}`),
    });
    try {
      assert.equal((await viaProxy(`http://127.0.0.2:${refusedPort}/secret/path?q=1`)).status, 403);
      const t = await tunnel(`127.0.0.2:${refusedTcpPort}`);
      assert.equal(t.status, 403);
      t.socket.destroy();
      assert.deepEqual(refusals, [
        `http://127.0.0.2:${refusedPort} target address is loopback`,
        `https://127.0.0.2:${refusedTcpPort} target address is loopback`,
      ]);
    } finally {
      revoke();
      revoke = proxy.admit(process.pid);
    }
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

  it("listens on 127.0.0.1 with no credential in its URL, caps connections, close() cuts tunnels", async () => {
    const own = await createEgressProxy({
      allowedHosts: ["127.0.0.1"],
      timeouts: { connectMs: 1_000, firstByteMs: 1_000, idleMs: 10_000 },
      maxConnections: 1,
    });
    assert.match(own.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    own.admit(process.pid);
    const open = (method: string, path: string) => {
      const req = request({
        host: "127.0.0.1",
        port: own.port,
        method,
        path,
        agent: false,
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
