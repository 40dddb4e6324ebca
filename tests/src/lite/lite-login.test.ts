import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

describe("lite: health and login", () => {
  let gw: GatewayProcess;
  before(async () => {
    gw = await startGateway("lite", { auth: authSection([], { token_ttl_hours: 2 }) });
  });
  after(async () => {
    await gw.stop();
  });

  it("answers /healthz and /readyz", async () => {
    const h = await requestJson(`${gw.url}/healthz`);
    assert.equal(h.status, 200);
    assert.deepEqual(h.body, { status: "ok" });
    const r = await requestJson(`${gw.url}/readyz`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: "ready" });
  });

  it("logs in with an EdDSA session JWT carrying the spec's claims", async () => {
    const r = await requestJson(`${gw.url}/v1/auth/login`, {
      body: { username: "admin", password: ADMIN_PASSWORD },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ["expires_at", "role", "token", "username"]);
    assert.equal(r.body.username, "admin");
    assert.equal(r.body.role, "admin");
    assert.match(r.body.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(decodeProtectedHeader(r.body.token).alg, "EdDSA");
    const claims = decodeJwt(r.body.token);
    assert.equal(claims.iss, "svc");
    assert.equal(claims.aud, "svc");
    assert.equal(claims.sub, "admin");
    assert.equal(claims.role, "admin");
    assert.ok(Array.isArray(claims.channels));
    assert.equal(typeof claims.jti, "string");
    assert.equal(typeof claims.rev, "number");
    assert.equal(claims.exp! - claims.iat!, 2 * 3600);
    assert.ok(claims.nbf! <= claims.iat!);
    assert.equal(new Date(r.body.expires_at).getTime(), claims.exp! * 1000);
  });

  it("refuses a wrong pair with 401 in the error format", async () => {
    const r = await requestJson(`${gw.url}/v1/auth/login`, {
      body: { username: "admin", password: "wrong-password" },
    });
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, "unauthorized");
    assert.equal(typeof r.body.error.message, "string");
    const unknown = await requestJson(`${gw.url}/v1/auth/login`, {
      body: { username: "nobody", password: "x" },
    });
    assert.equal(unknown.status, 401);
  });

  it("rejects unknown fields with 400", async () => {
    const r = await requestJson(`${gw.url}/v1/auth/login`, {
      body: { username: "admin", password: ADMIN_PASSWORD, remember: true },
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, "invalid_request");
    assert.match(r.body.error.message, /remember/);
  });
});
