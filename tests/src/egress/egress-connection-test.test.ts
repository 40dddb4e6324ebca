import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { assertError, type FullGateway, startFull } from "../full/full-fixture.js";
import { tempDir } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { type LoopbackProxy, startHttpProxy, startSocks5Proxy } from "./loopback-proxies.js";

const SECRET = "t3st-s3cret";
const BLOB = Buffer.alloc(256 * 1024, 0x61);

/** A loopback port with nothing listening (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("POST /v1/admin/egress/test: every outcome loopback can produce", () => {
  let origin: Origin;
  let full: FullGateway;
  let httpAuth: LoopbackProxy;
  let socksReject: LoopbackProxy;
  let socksOpen: LoopbackProxy;
  let tls: TlsServer;

  const test = (body: unknown) =>
    requestJson(`${full.base}/v1/admin/egress/test`, { token: full.admin, body });
  const assertShape = (r: Awaited<ReturnType<typeof test>>, outcome: string) => {
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.outcome, outcome, r.text);
    assert.equal(r.body.ok, outcome === "success");
    for (const k of [
      "ok",
      "reachable",
      "outcome",
      "status",
      "proxy_id",
      "via_proxy",
      "reason",
      "rewrite",
      "final_url",
      "dur_ms",
      "target",
    ])
      assert.ok(k in r.body, `${k} missing in ${r.text}`);
    if (outcome !== "success") assert.equal(typeof r.body.error, "string");
    assert.ok(!r.text.includes(SECRET) && !r.text.includes("q=secret"));
  };

  before(async () => {
    origin = await startOrigin({
      routes: (req, res) => {
        const path = (req.url ?? "").split("?")[0];
        if (path === "/blob") {
          res.writeHead(200, { "content-length": BLOB.length }).end(BLOB);
          return true;
        }
        if (path === "/throttle") {
          // 16 KiB every 250 ms: about 512 kbps, below the 1000 kbps floor.
          res.writeHead(200, { "content-length": BLOB.length });
          let sent = 0;
          const timer = setInterval(() => {
            res.write(BLOB.subarray(sent, sent + 16 * 1024));
            sent += 16 * 1024;
            if (sent >= BLOB.length) {
              clearInterval(timer);
              res.end();
            }
          }, 250);
          res.once("close", () => clearInterval(timer));
          return true;
        }
        return false;
      },
    });
    httpAuth = await startHttpProxy({ user: "gw", pass: SECRET });
    socksReject = await startSocks5Proxy({ rejectAll: true });
    socksOpen = await startSocks5Proxy();
    // A loopback HTTPS origin with a self-signed certificate no client trusts.
    const certDir = tempDir("svc-egress-tls-");
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
        ...["-keyout", join(certDir, "key.pem"), "-out", join(certDir, "cert.pem")],
        ...["-days", "1", "-subj", "/CN=127.0.0.1"],
      ],
      { stdio: "ignore" },
    );
    tls = createTlsServer(
      {
        key: readFileSync(join(certDir, "key.pem")),
        cert: readFileSync(join(certDir, "cert.pem")),
      },
      (socket) => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"),
    );
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
    full = await startFull({
      security: { allowed_hosts: ["127.0.0.1"] },
      egress: {
        first_byte_timeout_ms: 1500,
        min_test_kbps: 1000,
        proxies: [
          { id: "auth", url: `http://gw:${SECRET}@127.0.0.1:${httpAuth.port}` },
          { id: "socks", url: `socks5://127.0.0.1:${socksOpen.port}` },
        ],
      },
    });
  });
  after(async () => {
    await full?.gw.stop();
    await origin?.close();
    await Promise.all([httpAuth, socksReject, socksOpen].map((p) => p?.close()));
    tls?.close();
  });

  it("success: timing, sample and throughput, final URL without credentials or query", async () => {
    const r = await test({ target: "custom", url: `${origin.url}/blob?q=secret` });
    assertShape(r, "success");
    assert.equal(r.body.reachable, true);
    assert.equal(r.body.status, 200);
    assert.equal(r.body.target, "custom");
    assert.equal(r.body.proxy_id, "direct");
    assert.equal(r.body.via_proxy, false);
    assert.equal(r.body.final_url, `${origin.url}/blob`);
    assert.equal(r.body.sample_bytes, BLOB.length);
    assert.equal(typeof r.body.ttfb_ms, "number");
    assert.ok(r.body.throughput_kbps >= 1000, r.text);
  });

  it("success through a saved profile (proxy_id) and an unsaved one (proxy_url)", async () => {
    const before = httpAuth.carried.length;
    const saved = await test({ url: `${origin.url}/blob`, proxy_id: "auth" });
    assertShape(saved, "success");
    assert.equal(saved.body.proxy_id, "auth");
    assert.equal(saved.body.via_proxy, true);
    const unsaved = await test({
      url: `${origin.url}/blob`,
      proxy_url: `http://gw:${SECRET}@127.0.0.1:${httpAuth.port}`,
    });
    assertShape(unsaved, "success");
    assert.equal(unsaved.body.via_proxy, true);
    assert.equal(httpAuth.carried.length, before + 2);
  });

  it("routes by a draft document and by a channel's binding", async () => {
    const before = socksOpen.carried.length;
    const draft = await test({
      url: `${origin.url}/blob`,
      draft: {
        default: "direct",
        proxies: [{ id: "socks", url: `socks5://127.0.0.1:${socksOpen.port}` }],
        rules: [{ kind: "url_regex", pattern: "/blob$", proxy: "socks" }],
      },
    });
    assertShape(draft, "success");
    assert.equal(draft.body.proxy_id, "socks");
    assert.equal(draft.body.reason, "rule draft-0");
    assert.ok(socksOpen.carried.length >= before + 1);
    const relayed = socksOpen.relayed;
    const created = await requestJson(`${full.base}/v1/admin/channels`, {
      token: full.admin,
      body: {
        id: "bound",
        title: "Bound",
        ingress: "hls",
        source_url: `${origin.url}/blob`,
        egress: { mode: "profile", profile_id: "socks" },
      },
    });
    assert.equal(created.status, 201, created.text);
    const bound = await test({ target: "source", channel_id: "bound" });
    assertShape(bound, "success");
    assert.equal(bound.body.target, "source");
    assert.ok(socksOpen.relayed >= relayed + BLOB.length);
    assert.equal(bound.body.proxy_id, "socks");
    assert.ok(socksOpen.carried.length >= before + 1);
  });

  it("slow: reachable but below egress.min_test_kbps", async () => {
    const r = await test({ url: `${origin.url}/throttle` });
    assertShape(r, "slow");
    assert.equal(r.body.reachable, true);
    assert.ok(r.body.throughput_kbps < 1000, r.text);
    assert.ok(r.body.sample_bytes >= 64 * 1024);
  });

  it("proxy_auth: the proxy refuses the credentials (HTTP 407 and SOCKS5)", async () => {
    const http = await test({
      url: `${origin.url}/blob`,
      proxy_url: `http://gw:wrong@127.0.0.1:${httpAuth.port}`,
    });
    assertShape(http, "proxy_auth");
    const socks = await test({
      url: `${origin.url}/blob`,
      proxy_url: `socks5://gw:${SECRET}@127.0.0.1:${socksReject.port}`,
    });
    assertShape(socks, "proxy_auth");
    assert.equal(socks.body.reachable, false);
  });

  it("proxy: the proxy cannot be reached", async () => {
    const r = await test({
      url: `${origin.url}/blob`,
      proxy_url: `socks5://127.0.0.1:${await closedPort()}`,
    });
    assertShape(r, "proxy");
  });

  it("timeout: no answer in time", async () => {
    const r = await test({ url: `${origin.url}/stall` });
    assertShape(r, "timeout");
  });

  it("tls: the destination's certificate is not trusted (direct and through a SOCKS tunnel)", async () => {
    const port = (tls.address() as { port: number }).port;
    assertShape(await test({ url: `https://127.0.0.1:${port}/` }), "tls");
    assertShape(await test({ url: `https://127.0.0.1:${port}/`, proxy_id: "socks" }), "tls");
  });

  it("http_error: the destination answers an error status", async () => {
    const r = await test({ url: `${origin.url}/status/503` });
    assertShape(r, "http_error");
    assert.equal(r.body.status, 503);
    assert.equal(r.body.reachable, true);
    assert.ok(!r.text.includes("origin-secret"));
  });

  it("refused, not a result: a destination that is not a public address is 403 forbidden", async () => {
    // Spec "Egress": target safety has its own status (issue 30 item 4); every spelling and
    // redirects: connection-test-refusals.test.ts.
    for (const host of ["127.0.0.2", "localhost"]) {
      const hits = origin.hits.length;
      const r = await test({ url: `http://${host}:${origin.port}/blob` });
      assertError(r, 403, "forbidden");
      assert.match(r.body.error.message, /^url: /);
      assert.equal(origin.hits.length, hits);
      // Through a proxy the target is still checked here: the proxy is never asked.
      const carried = socksOpen.carried.length;
      const via = await test({ url: `http://${host}:${origin.port}/blob`, proxy_id: "socks" });
      assertError(via, 403, "forbidden");
      assert.equal(socksOpen.carried.length, carried);
    }
  });

  it("network: connection refused on a closed port of an allow-listed loopback host", async () => {
    const port = await closedPort();
    const r = await test({ url: `http://127.0.0.1:${port}/blob` });
    assertShape(r, "network");
    assert.equal(r.body.reachable, false);
    assert.equal(r.body.status, null);
    assert.equal(r.body.via_proxy, false);
    assert.equal(r.body.final_url, `http://127.0.0.1:${port}/blob`);
    assert.ok(!("ttfb_ms" in r.body) && !("throughput_kbps" in r.body), r.text);
  });

  it("dns: a name no DNS can hold fails resolution here, direct and through a proxy", async () => {
    // Loopback rule: a name such as `x.invalid` would be sent to the machine's DNS server.
    // A 64-octet label (RFC 1035 2.3.4 allows 63) is refused by the gateway's resolver before
    // getaddrinfo, and glibc and musl would refuse it without a query as well (strace shows
    // no socket but nscd's; docs/egress.md "Testing the outcomes").
    const host = `${"a".repeat(64)}.invalid`;
    const direct = await test({ url: `http://${host}/x` });
    assertShape(direct, "dns");
    assert.equal(direct.body.reachable, false);
    // Through a proxy the name is checked here first: the proxy is never asked.
    const carried = socksOpen.carried.length;
    const via = await test({ url: `http://${host}/x`, proxy_id: "socks" });
    assertShape(via, "dns");
    assert.equal(via.body.via_proxy, true);
    assert.equal(socksOpen.carried.length, carried);
  });

  it("rejects malformed bodies with 400 and refuses API tokens without refresh", async () => {
    for (const body of [
      { target: "nowhere" },
      { target: "custom" },
      { url: "ftp://127.0.0.1/x" },
      { url: "http://u:p@127.0.0.1/x" },
      { url: `${origin.url}/blob`, proxy_url: "gopher://x:1" },
      { url: `${origin.url}/blob`, proxy_id: "missing" },
      { url: `${origin.url}/blob`, channel_id: "missing" },
      { url: `${origin.url}/blob`, proxy_id: "auth", proxy_url: `socks5://127.0.0.1:1` },
      { url: `${origin.url}/blob`, draft: { default: "missing" } },
      { url: `${origin.url}/blob`, extra: 1 },
    ])
      assertError(await test(body), 400, "invalid_request");
  });
});
