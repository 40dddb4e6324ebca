import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import {
  assertError,
  assertTime,
  createApiToken,
  type FullGateway,
  keysOf,
  startFull,
} from "./full-fixture.js";

const TOKEN_FIELDS = [
  "created_at",
  "created_by",
  "enabled",
  "expires_at",
  "id",
  "last_used_at",
  "name",
  "note",
  "revision",
  "revoked_at",
  "scopes",
  "token_prefix",
  "updated_at",
];

describe("full: admin API tokens", () => {
  let f: FullGateway;
  const url = (p: string) => `${f.base}${p}`;
  before(async () => {
    f = await startFull();
  });
  after(async () => {
    await f.gw.stop();
  });

  it("creates a svc_v1_ token shown once, lists it without the secret", async () => {
    const r = await requestJson(url("/v1/admin/api-tokens"), {
      token: f.admin,
      body: { name: "deploy", note: "ci job", scopes: ["read", "write"], expires_in_sec: 3600 },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(keysOf(r.body), ["credential", "token", "warning"]);
    assert.match(r.body.token, /^svc_v1_[0-9A-Za-z]{48}$/);
    assert.equal(typeof r.body.warning, "string");
    const c = r.body.credential;
    assert.deepEqual(keysOf(c), TOKEN_FIELDS);
    assert.equal(typeof c.id, "string");
    assert.ok(r.body.token.startsWith(c.token_prefix));
    assert.ok(c.token_prefix.length < r.body.token.length);
    assert.deepEqual(c.scopes, ["read", "write"]);
    assert.equal(c.enabled, true);
    assert.equal(c.created_by, "admin");
    assert.equal(c.revision, 1);
    assertTime(c.created_at);
    assertTime(c.expires_at);
    assert.equal(c.last_used_at, null);
    const list = await requestJson(url("/v1/admin/api-tokens"), { token: f.admin });
    assert.equal(list.status, 200);
    assert.deepEqual(keysOf(list.body), ["available_scopes", "tokens"]);
    assert.deepEqual(list.body.available_scopes, ["read", "write", "delete", "refresh"]);
    assert.ok(list.body.tokens.some((t: any) => t.id === c.id));
    assert.ok(!list.text.includes(r.body.token));
  });

  it("validates create bodies", async () => {
    const bad = (body: unknown) =>
      requestJson(url("/v1/admin/api-tokens"), { token: f.admin, body });
    assertError(await bad({ scopes: ["read"] }), 400, "invalid_request");
    assertError(await bad({ name: "x", scopes: [] }), 400, "invalid_request");
    assertError(await bad({ name: "x", scopes: ["admin"] }), 400, "invalid_request");
    assertError(
      await bad({ name: "x", scopes: ["read"], expires_in_sec: 11 * 366 * 86400 }),
      400,
      "invalid_request",
    );
    assertError(
      await bad({ name: "x", scopes: ["read"], expires_in_sec: -1 }),
      400,
      "invalid_request",
    );
    assertError(await bad({ name: "x", scopes: ["read"], owner: "me" }), 400, "invalid_request");
  });

  it("lets each scope through its own routes and denies the others with missing_scope", async () => {
    const cases: { scope: string; allow: [string, string, number]; deny: [string, string] }[] = [
      {
        scope: "read",
        allow: ["GET", "/v1/admin/settings", 200],
        deny: ["POST", "/v1/admin/channels/enable-all"],
      },
      {
        scope: "write",
        allow: ["POST", "/v1/admin/channels/enable-all", 200],
        deny: ["GET", "/v1/admin/channels"],
      },
      {
        scope: "delete",
        allow: ["DELETE", "/v1/admin/access-logs", 200],
        deny: ["GET", "/v1/admin/access-logs"],
      },
      {
        scope: "refresh",
        allow: ["POST", "/v1/admin/channels/news/preview", 201],
        deny: ["DELETE", "/v1/admin/access-logs"],
      },
    ];
    for (const c of cases) {
      const t = await createApiToken(f.base, f.admin, [c.scope]);
      const ok = await requestJson(url(c.allow[1]), { method: c.allow[0], token: t.token });
      assert.equal(ok.status, c.allow[2], `${c.scope} ${c.allow[1]}: ${ok.text}`);
      const no = await requestJson(url(c.deny[1]), { method: c.deny[0], token: t.token });
      assertError(no, 403, "forbidden");
      assert.match(no.body.error.message, /scope/);
      // read is not implied by any other scope, not even for /v1/me.
      if (c.scope !== "read")
        assertError(await requestJson(url("/v1/me"), { token: t.token }), 403, "forbidden");
    }
  });

  it("refuses session-only and unregistered routes to tokens", async () => {
    const t = await createApiToken(f.base, f.admin, ["read", "write", "delete", "refresh"]);
    assertError(
      await requestJson(url("/v1/admin/api-tokens"), { token: t.token }),
      403,
      "session_required",
    );
    assertError(
      await requestJson(url("/v1/admin/api-token-logs"), { token: t.token }),
      403,
      "session_required",
    );
    assertError(
      await requestJson(url("/v1/admin/secret-thing"), { token: t.token }),
      403,
      "route_not_available",
    );
    assertError(
      await requestJson(url("/v1/admin/channels"), { method: "PATCH", token: t.token }),
      403,
      "route_not_available",
    );
    assertError(
      await requestJson(url("/v1/me"), { token: `svc_v1_${"A".repeat(48)}` }),
      401,
      "unauthorized",
    );
  });

  it("audits allowed and denied requests with reasons, and moves last_used_at", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    await requestJson(url("/v1/admin/channels"), {
      token: t.token,
      headers: { "user-agent": "audit-test/1", "x-request-id": "req-allow-1" },
    });
    await requestJson(url("/v1/admin/channels/enable-all"), {
      method: "POST",
      token: t.token,
      headers: { "x-request-id": "req-deny-1" },
    });
    const logs = await requestJson(url("/v1/admin/api-token-logs"), { token: f.admin });
    assert.equal(logs.status, 200);
    assert.deepEqual(keysOf(logs.body), ["logs"]);
    const mine = logs.body.logs.filter((l: any) => l.token_id === t.id);
    assert.equal(mine.length, 2);
    const [deny, allow] = mine;
    assert.deepEqual(keysOf(allow), [
      "created_at",
      "decision",
      "id",
      "method",
      "path",
      "remote",
      "request_id",
      "required_scope",
      "status",
      "token_id",
      "token_prefix",
      "user_agent",
    ]);
    assert.equal(allow.decision, "allow");
    assert.equal(allow.status, 200);
    assert.equal(allow.method, "GET");
    assert.equal(allow.path, "/v1/admin/channels");
    assert.equal(allow.required_scope, "read");
    assert.equal(allow.remote, "127.0.0.1");
    assert.equal(allow.user_agent, "audit-test/1");
    assert.equal(allow.request_id, "req-allow-1");
    assert.ok(t.token.startsWith(allow.token_prefix));
    assertTime(allow.created_at);
    assert.equal(deny.decision, "deny");
    assert.equal(deny.reason, "missing_scope");
    assert.equal(deny.status, 403);
    assert.equal(deny.required_scope, "write");
    const list = await requestJson(url("/v1/admin/api-tokens"), { token: f.admin });
    const row = list.body.tokens.find((x: any) => x.id === t.id);
    assertTime(row.last_used_at);
  });

  it("requires If-Match for update, rotate, revoke and delete (missing or stale: 409)", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    for (const [method, suffix, body] of [
      ["PUT", "", { name: "x" }],
      ["POST", "/rotate", undefined],
      ["POST", "/revoke", undefined],
      ["DELETE", "", undefined],
    ] as const) {
      const path = url(`/v1/admin/api-tokens/${t.id}${suffix}`);
      assertError(await requestJson(path, { method, token: f.admin, body }), 409, "conflict");
      assertError(
        await requestJson(path, { method, token: f.admin, body, headers: { "if-match": '"7"' } }),
        409,
        "conflict",
      );
    }
    assertError(
      await requestJson(url("/v1/admin/api-tokens/at_nope"), {
        method: "DELETE",
        token: f.admin,
        headers: { "if-match": '"1"' },
      }),
      404,
      "not_found",
    );
  });

  it("updates fields, and disabling answers 401 revoked", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    const r = await requestJson(url(`/v1/admin/api-tokens/${t.id}`), {
      method: "PUT",
      token: f.admin,
      headers: { "if-match": `"${t.revision}"` },
      body: { name: "renamed", note: "n", scopes: ["read", "refresh"] },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(keysOf(r.body), ["credential"]);
    assert.equal(r.body.credential.name, "renamed");
    assert.deepEqual(r.body.credential.scopes, ["read", "refresh"]);
    assert.equal(r.body.credential.revision, 2);
    const me = await requestJson(url("/v1/me"), { token: t.token });
    assert.equal(me.body.username, "renamed");
    const off = await requestJson(url(`/v1/admin/api-tokens/${t.id}`), {
      method: "PUT",
      token: f.admin,
      headers: { "if-match": '"2"' },
      body: { enabled: false },
    });
    assert.equal(off.body.credential.enabled, false);
    assertError(await requestJson(url("/v1/me"), { token: t.token }), 401, "unauthorized");
    const logs = await requestJson(url("/v1/admin/api-token-logs"), { token: f.admin });
    assert.equal(logs.body.logs.find((l: any) => l.token_id === t.id).reason, "revoked");
  });

  it("expires: a past expires_at answers 401 expired", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    const r = await requestJson(url(`/v1/admin/api-tokens/${t.id}`), {
      method: "PUT",
      token: f.admin,
      headers: { "if-match": "1" },
      body: { expires_at: "2020-01-01T00:00:00Z" },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.credential.expires_at, "2020-01-01T00:00:00Z");
    assertError(await requestJson(url("/v1/me"), { token: t.token }), 401, "unauthorized");
    const logs = await requestJson(url("/v1/admin/api-token-logs"), { token: f.admin });
    const last = logs.body.logs.find((l: any) => l.token_id === t.id);
    assert.equal(last.reason, "expired");
    assert.equal(last.status, 401);
  });

  it("rotate replaces the secret at once and keeps name, scopes and expiry", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"], { expires_in_sec: 7200 });
    assert.equal((await requestJson(url("/v1/me"), { token: t.token })).status, 200);
    const before = (
      await requestJson(url("/v1/admin/api-tokens"), { token: f.admin })
    ).body.tokens.find((x: any) => x.id === t.id);
    const r = await requestJson(url(`/v1/admin/api-tokens/${t.id}/rotate`), {
      method: "POST",
      token: f.admin,
      headers: { "if-match": `"${before.revision}"` },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(keysOf(r.body), ["credential", "token", "warning"]);
    assert.notEqual(r.body.token, t.token);
    assert.equal(r.body.credential.id, t.id);
    assert.equal(r.body.credential.name, before.name);
    assert.deepEqual(r.body.credential.scopes, before.scopes);
    assert.equal(r.body.credential.expires_at, before.expires_at);
    assertError(await requestJson(url("/v1/me"), { token: t.token }), 401, "unauthorized");
    assert.equal((await requestJson(url("/v1/me"), { token: r.body.token })).status, 200);
  });

  it("revoke is permanent; delete answers 204 and the audit keeps the prefix", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    await requestJson(url("/v1/me"), { token: t.token });
    const rv = await requestJson(url(`/v1/admin/api-tokens/${t.id}/revoke`), {
      method: "POST",
      token: f.admin,
      headers: { "if-match": '"1"' },
    });
    assert.equal(rv.status, 200);
    assert.deepEqual(rv.body, { ok: true });
    assertError(await requestJson(url("/v1/me"), { token: t.token }), 401, "unauthorized");
    const back = await requestJson(url(`/v1/admin/api-tokens/${t.id}`), {
      method: "PUT",
      token: f.admin,
      headers: { "if-match": '"2"' },
      body: { enabled: true },
    });
    assertError(back, 409, "conflict");
    const del = await requestJson(url(`/v1/admin/api-tokens/${t.id}`), {
      method: "DELETE",
      token: f.admin,
      headers: { "if-match": '"2"' },
    });
    assert.equal(del.status, 204);
    assert.equal(del.text, "");
    const list = await requestJson(url("/v1/admin/api-tokens"), { token: f.admin });
    assert.ok(!list.body.tokens.some((x: any) => x.id === t.id));
    const logs = await requestJson(url("/v1/admin/api-token-logs"), { token: f.admin });
    const kept = logs.body.logs.filter((l: any) => l.token_id === t.id);
    assert.ok(kept.length >= 2);
    assert.ok(kept.every((l: any) => t.token.startsWith(l.token_prefix)));
  });

  it("keeps the audit listing at the 100 most recent records", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"]);
    await Promise.all(
      Array.from({ length: 120 }, () => requestJson(url("/v1/me"), { token: t.token })),
    );
    const logs = await requestJson(url("/v1/admin/api-token-logs"), { token: f.admin });
    assert.equal(logs.body.logs.length, 100);
    const ids = logs.body.logs.map((l: any) => Number(l.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
  });
});
