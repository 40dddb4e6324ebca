import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { assertError, type FullGateway, keysOf, startFull } from "./full-fixture.js";

describe("full: settings, status and metrics", () => {
  let f: FullGateway;
  const url = (p: string) => `${f.base}${p}`;
  before(async () => {
    f = await startFull({ security: { cors_origins: ["https://console.example"] } });
  });
  after(async () => {
    await f.gw.stop();
  });

  it("reads settings: config values, runtime values, TLS facts and revision", async () => {
    const r = await requestJson(url("/v1/admin/settings"), { token: f.admin });
    assert.equal(r.status, 200);
    assert.deepEqual(keysOf(r.body), [
      "access_log_retention_days",
      "certificate",
      "cors_origins",
      "listen",
      "play_require_auth",
      "public_base_url",
      "public_hosts",
      "revision",
      "split_listening",
      "tls_enabled",
      "tls_listen",
    ]);
    assert.equal(r.body.listen, "127.0.0.1:0");
    assert.deepEqual(r.body.cors_origins, ["https://console.example"]);
    assert.equal(r.body.access_log_retention_days, "30");
    assert.equal(r.body.public_base_url, "");
    assert.equal(r.body.tls_enabled, false);
    assert.equal(r.body.split_listening, false);
    assert.deepEqual(r.body.certificate, {
      source: "none",
      path: "",
      hosts: [],
      expires_at: null,
      error: null,
    });
    assert.equal(r.body.revision, 1);
    assert.equal(r.headers.get("etag"), '"1"');
  });

  it("writes settings with If-Match (missing or stale 409) and validates retention", async () => {
    const put = (body: unknown, ifMatch?: string) =>
      requestJson(url("/v1/admin/settings"), {
        method: "PUT",
        token: f.admin,
        body,
        headers: ifMatch === undefined ? {} : { "if-match": ifMatch },
      });
    const body = { public_base_url: "https://tv.example", access_log_retention_days: "7" };
    assertError(await put(body), 409, "conflict");
    assertError(await put(body, '"4"'), 409, "conflict");
    for (const days of ["0", "3651", "x", "7.5", ""]) {
      assertError(
        await put({ ...body, access_log_retention_days: days }, '"1"'),
        400,
        "invalid_request",
      );
    }
    assertError(
      await put({ ...body, access_log_retention_days: 7 }, '"1"'),
      400,
      "invalid_request",
    );
    assertError(await put({ ...body, public_base_url: "ftp://x" }, '"1"'), 400, "invalid_request");
    assertError(await put({ ...body, extra: true }, '"1"'), 400, "invalid_request");
    const ok = await put({ ...body, tls_enabled: true }, '"1"');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.public_base_url, "https://tv.example");
    assert.equal(ok.body.access_log_retention_days, "7");
    assert.equal(ok.body.tls_enabled, true);
    assert.equal(ok.body.revision, 2);
    const kept = await put(
      { public_base_url: "https://tv.example", access_log_retention_days: "3650" },
      "2",
    );
    assert.equal(kept.body.tls_enabled, true);
    assert.equal(kept.body.access_log_retention_days, "3650");
    // public_base_url now drives generated URLs.
    const ch = await requestJson(url("/v1/channels"), { token: f.admin });
    assert.equal(ch.body.channels[0].play_url, "https://tv.example/v1/play/news/index.m3u8");
  });

  it("answers GET / with service info, or 302 to the console for a browser", async () => {
    const r = await requestJson(url("/"));
    assert.equal(r.status, 200);
    assert.deepEqual(keysOf(r.body), ["admin", "commit", "name", "version"]);
    assert.equal(r.body.admin, "/admin");
    for (const k of ["name", "version", "commit"]) assert.equal(typeof r.body[k], "string");
    const html = await requestJson(url("/"), { headers: { accept: "text/html,*/*" } });
    assert.equal(html.status, 302);
    assert.equal(new URL(html.headers.get("location")!, f.base).pathname, "/admin");
  });

  it("refuses admin bodies over max_body_bytes with 413, declared or chunked", async () => {
    const big = JSON.stringify({ name: "x".repeat(1_100_000) });
    const declared = await requestJson(url("/v1/admin/access-tokens"), {
      token: f.admin,
      body: big,
    });
    assertError(declared, 413, "invalid_request");
    const chunks = [big.slice(0, 600_000), big.slice(600_000)];
    const stream = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const chunked = await fetch(url("/v1/admin/access-tokens"), {
      method: "POST",
      headers: { authorization: `Bearer ${f.admin}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    assert.equal(chunked.status, 413);
    assert.equal(((await chunked.json()) as any).error.code, "invalid_request");
    // A small chunked body is read and handled normally.
    const small = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ name: "chunked" })));
        controller.close();
      },
    });
    const ok = await fetch(url("/v1/admin/access-tokens"), {
      method: "POST",
      headers: { authorization: `Bearer ${f.admin}`, "content-type": "application/json" },
      body: small,
      duplex: "half",
    } as RequestInit);
    assert.equal(ok.status, 201);
    assert.equal(((await ok.json()) as any).name, "chunked");
  });

  it("reports status with the spec's shape", async () => {
    const r = await requestJson(url("/v1/status"), { token: f.admin });
    assert.equal(r.status, 200);
    assert.deepEqual(keysOf(r.body), [
      "bytes_in",
      "bytes_out",
      "errors",
      "goroutines",
      "requests",
      "session_count",
      "sessions",
      "uptime_sec",
    ]);
    for (const k of [
      "bytes_in",
      "bytes_out",
      "errors",
      "requests",
      "uptime_sec",
      "session_count",
    ]) {
      assert.ok(Number.isInteger(r.body[k]) && r.body[k] >= 0, k);
    }
    assert.ok(Number.isInteger(r.body.goroutines) && r.body.goroutines >= 1);
    assert.deepEqual(r.body.sessions, []);
    assert.equal(r.body.session_count, 0);
    const viewer = await requestJson(url("/v1/status"), { token: await f.viewer() });
    assert.equal(viewer.status, 200);
    assert.deepEqual(viewer.body.sessions, []);
  });

  it("serves Prometheus text with route templates, never keys", async () => {
    const k = await requestJson(url("/v1/admin/access-tokens"), {
      token: f.admin,
      body: { name: "m" },
    });
    await requestJson(url(`/p/${k.body.token}/playlist.m3u`));
    await requestJson(url("/v1/auth/login"), {
      body: { username: "admin", password: "wrong-password" },
    });
    await requestJson(url("/v1/me"), { token: `svc_v1_${"B".repeat(48)}` });
    const res = await fetch(url("/metrics"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4");
    const text = await res.text();
    assert.ok(!text.includes(k.body.token.slice(0, 20)));
    assert.match(
      text,
      /svc_http_requests_total\{method="GET",route="\/p\/:token\/playlist\.m3u",status="200"\} 1/,
    );
    assert.match(
      text,
      /svc_http_request_duration_seconds_bucket\{[^}]*route="\/v1\/me"[^}]*\} \d+/,
    );
    assert.match(text, /^svc_login_failures_total 1$/m);
    assert.match(text, /^svc_api_token_denials_total\{reason="invalid"\} 1$/m);
    for (const name of [
      "svc_playback_bytes_in_total",
      "svc_playback_bytes_out_total",
      "svc_upstream_errors_total",
      "svc_active_sessions",
    ]) {
      assert.match(text, new RegExp(`^${name} \\d+$`, "m"), name);
    }
  });
});

describe("full: observe.enabled false", () => {
  it("answers /metrics with 404 not_found", async () => {
    const gw = await startGateway("full", { auth: authSection(), observe: { enabled: false } });
    try {
      assertError(await requestJson(`${gw.url}/metrics`), 404, "not_found");
      await login(gw.url, "admin", ADMIN_PASSWORD);
    } finally {
      await gw.stop();
    }
  });
});
