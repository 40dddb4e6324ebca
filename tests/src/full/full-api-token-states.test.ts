import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import {
  assertError,
  createApiToken,
  type FullGateway,
  keysOf,
  startFull,
} from "./full-fixture.js";

describe("full: API token states (If-Match, update, expiry, rotate, revoke, delete)", () => {
  let f: FullGateway;
  const url = (p: string) => `${f.base}${p}`;
  before(async () => {
    f = await startFull();
  });
  after(async () => {
    await f.gw.stop();
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

  it("caps expires_at on update at 10 years ahead, as expires_in_sec is capped at creation", async () => {
    const t = await createApiToken(f.base, f.admin, ["read"], { expires_in_sec: 3600 });
    const put = (expires_at: unknown, revision: number) =>
      requestJson(url(`/v1/admin/api-tokens/${t.id}`), {
        method: "PUT",
        token: f.admin,
        headers: { "if-match": `"${revision}"` },
        body: { expires_at },
      });
    const day = 86_400_000;
    // Spec "Limits": up to 10 years; the gateway counts 10 × 366 days, as at creation.
    const within = new Date(Date.now() + 10 * 365 * day).toISOString().replace(/\.\d{3}Z$/, "Z");
    const ok = await put(within, 1);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.credential.expires_at, within);
    for (const beyond of [
      new Date(Date.now() + 10 * 366 * day + day).toISOString(),
      "9999-12-31T23:59:59Z",
      "+275760-09-13T00:00:00.000Z",
    ]) {
      const r = await put(beyond, 2);
      assertError(r, 400, "invalid_request");
      assert.match(r.body.error.message, /expires_at: at most 10 years ahead/);
    }
    assertError(await put("next week", 2), 400, "invalid_request");
    const listed = (
      await requestJson(url("/v1/admin/api-tokens"), { token: f.admin })
    ).body.tokens.find((x: { id: string }) => x.id === t.id);
    assert.equal(listed.revision, 2, "refused updates change nothing");
    assert.equal(listed.expires_at, within);
    assert.equal((await requestJson(url("/v1/me"), { token: t.token })).status, 200);
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
    // Newest first. The list is ordered by each record's microsecond stamp; in one process
    // the ids follow it too. With workers (SVC_TEST_WORKERS) each worker writes its own
    // batches, so the ids of concurrent requests interleave by batch (docs/cluster.md
    // "Workers", usage logs) and only the time order holds.
    const times = logs.body.logs.map((l: any) => Date.parse(l.created_at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    const ids = logs.body.logs.map((l: any) => Number(l.id));
    assert.equal(new Set(ids).size, 100);
    if ((process.env.SVC_TEST_WORKERS ?? "1") === "1")
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
      );
  });
});
