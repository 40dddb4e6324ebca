import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

/** A raw request with a chosen Host header (fetch does not let a caller set Host). */
function rawGet(
  base: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const FULL_ONLY = ["x-request-id", "content-security-policy", "x-frame-options"];

for (const build of ["full", "lite"] as const) {
  describe(`${build}: HTTP rules`, () => {
    let gw: GatewayProcess;
    before(async () => {
      gw = await startGateway(build, {
        auth: authSection([], { login_rate_per_min: 20 }),
        security: {
          public_hosts: ["gw.test", "127.0.0.1"],
          cors_origins: ["http://app.test"],
          max_body_bytes: 2048,
        },
      });
    });
    after(async () => {
      assert.equal(await gw.stop(), 0, "SIGTERM stops with exit status 0");
    });

    it("sets the build's default headers", async () => {
      const r = await requestJson(`${gw.url}/healthz`);
      assert.equal(r.headers.get("x-content-type-options"), "nosniff");
      assert.equal(r.headers.get("referrer-policy"), "no-referrer");
      assert.equal(r.headers.get("cache-control"), "no-store, no-cache, must-revalidate");
      for (const h of FULL_ONLY)
        assert.equal(r.headers.has(h), build === "full", `${h} on ${build}`);
      if (build === "full") {
        assert.equal(r.headers.get("x-frame-options"), "DENY");
        assert.match(r.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      }
    });

    if (build === "full") {
      it("echoes a plain X-Request-ID and replaces a hostile one", async () => {
        const echoed = await requestJson(`${gw.url}/healthz`, {
          headers: { "x-request-id": "abc-123" },
        });
        assert.equal(echoed.headers.get("x-request-id"), "abc-123");
        const hostile = await requestJson(`${gw.url}/healthz`, {
          headers: { "x-request-id": "a b<script>" },
        });
        assert.match(hostile.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
      });
    }

    it("refuses a Host outside public_hosts, except loopback health checks", async () => {
      const bad = await rawGet(gw.url, "/v1/playlist.m3u", "evil.test");
      assert.equal(bad.status, 403);
      assert.equal(JSON.parse(bad.body).error.code, "forbidden");
      assert.equal((await rawGet(gw.url, "/healthz", "evil.test")).status, 200);
      assert.equal((await rawGet(gw.url, "/readyz", "evil.test")).status, 200);
      assert.equal((await rawGet(gw.url, "/healthz", "gw.test:8080")).status, 200);
    });

    it("answers CORS only for listed origins", async () => {
      const ok = await requestJson(`${gw.url}/healthz`, { headers: { origin: "http://app.test" } });
      assert.equal(ok.headers.get("access-control-allow-origin"), "http://app.test");
      const other = await requestJson(`${gw.url}/healthz`, {
        headers: { origin: "http://evil.test" },
      });
      for (const [name] of other.headers) assert.ok(!name.startsWith("access-control-"), name);
    });

    it("answers OPTIONS with 204 at once, with preflight headers for a listed origin", async () => {
      const plain = await requestJson(`${gw.url}/v1/auth/login`, { method: "OPTIONS" });
      assert.equal(plain.status, 204);
      assert.equal(plain.text, "");
      const pre = await requestJson(`${gw.url}/v1/auth/login`, {
        method: "OPTIONS",
        headers: { origin: "http://app.test", "access-control-request-method": "POST" },
      });
      assert.equal(pre.status, 204);
      assert.match(pre.headers.get("access-control-allow-methods") ?? "", /POST/);
      const unknown = await requestJson(`${gw.url}/no/such/path`, { method: "OPTIONS" });
      assert.equal(unknown.status, 204);
    });

    it("enforces the body ceiling while reading, with or without Content-Length", async () => {
      const big = JSON.stringify({ username: "admin", password: "x".repeat(4096) });
      const sized = await requestJson(`${gw.url}/v1/auth/login`, { body: big });
      assert.equal(sized.status, 413);
      assert.equal(sized.body.error.code, "invalid_request");
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 8; i++)
            controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
          controller.close();
        },
      });
      const res = await fetch(`${gw.url}/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: chunks,
        duplex: "half",
      } as RequestInit);
      assert.equal(res.status, 413);
    });

    it("answers an unknown path with 404 not_found in the error format", async () => {
      const r = await requestJson(`${gw.url}/v1/nothing/here`);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: { code: "not_found", message: "not found" } });
      const post = await requestJson(`${gw.url}/v1/nothing`, { body: {} });
      assert.equal(post.status, 404);
    });

    it("answers malformed JSON with 400", async () => {
      const r = await requestJson(`${gw.url}/v1/auth/login`, { body: "{nope" });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, "invalid_request");
    });

    it("limits logins to login_rate_per_min per client IP: the 21st attempt is 429", async () => {
      // A fresh process: the tests above spent attempts of this client's quota.
      const fresh = await startGateway(build, { auth: authSection() });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 21; i++) {
          const password = i === 0 ? ADMIN_PASSWORD : "wrong-pass";
          const r = await requestJson(`${fresh.url}/v1/auth/login`, {
            body: { username: "admin", password },
          });
          statuses.push(r.status);
        }
        assert.equal(statuses[0], 200);
        assert.ok(
          statuses.slice(1, 20).every((s) => s === 401),
          JSON.stringify(statuses),
        );
        assert.equal(statuses[20], 429);
        const last = await requestJson(`${fresh.url}/v1/auth/login`, {
          body: { username: "admin", password: ADMIN_PASSWORD },
        });
        assert.equal(last.status, 429);
        assert.equal(last.body.error.code, "too_many_requests");
        assert.ok(Number(last.headers.get("retry-after")) > 0);
      } finally {
        await fresh.stop();
      }
    });
  });
}

describe("no CORS configured", () => {
  it("sends no CORS header at all", async () => {
    const gw = await startGateway("lite", { auth: authSection() });
    const r = await requestJson(`${gw.url}/healthz`, { headers: { origin: "http://app.test" } });
    for (const [name] of r.headers) assert.ok(!name.startsWith("access-control-"), name);
    const pre = await requestJson(`${gw.url}/healthz`, {
      method: "OPTIONS",
      headers: { origin: "http://app.test", "access-control-request-method": "GET" },
    });
    assert.equal(pre.status, 204);
    for (const [name] of pre.headers) assert.ok(!name.startsWith("access-control-"), name);
    await gw.stop();
  });
});
