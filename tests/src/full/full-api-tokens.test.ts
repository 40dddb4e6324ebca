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
      assertError(no, 403, "missing_scope");
      assert.match(no.body.error.message, /scope/);
      // read is not implied by any other scope, not even for /v1/me.
      if (c.scope !== "read")
        assertError(await requestJson(url("/v1/me"), { token: t.token }), 403, "missing_scope");
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
});
