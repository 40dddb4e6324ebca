import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection, VIEWER_PASSWORD } from "../harness/users.js";
import {
  assertError,
  createApiToken,
  type FullGateway,
  keysOf,
  startFull,
} from "./full-fixture.js";

describe("full: /v1/me and PUT /v1/me/credentials", () => {
  let f: FullGateway;
  before(async () => {
    f = await startFull();
  });
  after(async () => {
    await f.gw.stop();
  });

  it("describes a session and an API token caller", async () => {
    const me = await requestJson(`${f.base}/v1/me`, { token: f.admin });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, {
      username: "admin",
      role: "admin",
      channel_ids: [],
      credential: "session",
      scopes: null,
    });
    const viewer = await requestJson(`${f.base}/v1/me`, { token: await f.viewer() });
    assert.deepEqual(viewer.body.channel_ids, ["news"]);
    assert.equal(viewer.body.role, "viewer");
    const t = await createApiToken(f.base, f.admin, ["read", "refresh"]);
    const byToken = await requestJson(`${f.base}/v1/me`, { token: t.token });
    assert.equal(byToken.status, 200);
    assert.deepEqual(byToken.body, {
      username: "t-read-refresh",
      role: "admin",
      channel_ids: [],
      credential: "api_token",
      scopes: ["read", "refresh"],
    });
  });

  it("refuses missing and garbage credentials with 401", async () => {
    assertError(await requestJson(`${f.base}/v1/me`), 401, "unauthorized");
    assertError(await requestJson(`${f.base}/v1/me`, { token: "not-a-jwt" }), 401, "unauthorized");
  });

  it("validates the body: unknown fields, nothing to change, lengths, control characters", async () => {
    const put = (body: unknown) =>
      requestJson(`${f.base}/v1/me/credentials`, { method: "PUT", token: f.admin, body });
    assertError(
      await put({ current_password: ADMIN_PASSWORD, username: "x", extra: 1 }),
      400,
      "invalid_request",
    );
    assertError(await put({ current_password: ADMIN_PASSWORD }), 400, "invalid_request");
    assertError(
      await put({ current_password: ADMIN_PASSWORD, new_password: "short" }),
      400,
      "invalid_request",
    );
    assertError(
      await put({ current_password: ADMIN_PASSWORD, new_password: "x".repeat(73) }),
      400,
      "invalid_request",
    );
    // 72 bytes of 3-byte characters is 24 characters: the limit counts bytes.
    assertError(
      await put({ current_password: ADMIN_PASSWORD, new_password: "€".repeat(25) }),
      400,
      "invalid_request",
    );
    assertError(
      await put({ current_password: ADMIN_PASSWORD, username: "a".repeat(65) }),
      400,
      "invalid_request",
    );
    assertError(
      await put({ current_password: ADMIN_PASSWORD, username: "bad\u0007name" }),
      400,
      "invalid_request",
    );
  });

  it("answers 422 for a wrong current password and 409 for a taken username", async () => {
    const put = (body: unknown) =>
      requestJson(`${f.base}/v1/me/credentials`, { method: "PUT", token: f.admin, body });
    assertError(
      await put({ current_password: "wrong-password", new_password: "new-password-1" }),
      422,
      "current_password_invalid",
    );
    assertError(
      await put({ current_password: ADMIN_PASSWORD, username: "viewer" }),
      409,
      "username_taken",
    );
  });

  it("is session-only: API tokens get session_required, viewers forbidden, previews unauthorized", async () => {
    const t = await createApiToken(f.base, f.admin, ["read", "write", "delete", "refresh"]);
    const r = await requestJson(`${f.base}/v1/me/credentials`, {
      method: "PUT",
      token: t.token,
      body: { current_password: ADMIN_PASSWORD, new_password: "new-password-1" },
    });
    assertError(r, 403, "session_required");
    const v = await requestJson(`${f.base}/v1/me/credentials`, {
      method: "PUT",
      token: await f.viewer(),
      body: { current_password: VIEWER_PASSWORD, new_password: "new-password-1" },
    });
    assertError(v, 403, "forbidden");
  });
});

describe("full: a credential change", () => {
  it("returns a fresh login-shaped token, kills earlier sessions, and survives a restart", async () => {
    const f = await startFull();
    const dir = f.gw.configPath.replace(/\/gateway\.yaml$/, "");
    try {
      const older = await login(f.base, "admin", ADMIN_PASSWORD);
      const r = await requestJson(`${f.base}/v1/me/credentials`, {
        method: "PUT",
        token: f.admin,
        body: {
          current_password: ADMIN_PASSWORD,
          username: "root",
          new_password: "brand-new-pass",
        },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(keysOf(r.body), ["expires_at", "role", "token", "username"]);
      assert.equal(r.body.username, "root");
      assert.equal(r.body.role, "admin");
      for (const dead of [f.admin, older]) {
        assertError(await requestJson(`${f.base}/v1/me`, { token: dead }), 401, "unauthorized");
      }
      const me = await requestJson(`${f.base}/v1/me`, { token: r.body.token });
      assert.equal(me.body.username, "root");
      assertError(
        await requestJson(`${f.base}/v1/auth/login`, {
          body: { username: "admin", password: ADMIN_PASSWORD },
        }),
        401,
        "unauthorized",
      );
      await login(f.base, "root", "brand-new-pass");
    } finally {
      f.gw.proc.kill("SIGTERM");
      await new Promise((res) => f.gw.proc.once("exit", res));
    }
    // Same data dir, same config file (never rewritten): the override is applied at startup.
    const again = await startGateway("full", { auth: authSection(["news"]) }, { dir });
    try {
      await login(again.url, "root", "brand-new-pass");
      const old = await requestJson(`${again.url}/v1/auth/login`, {
        body: { username: "admin", password: ADMIN_PASSWORD },
      });
      assertError(old, 401, "unauthorized");
    } finally {
      await again.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shares the login limiter keyed by username and client IP (429)", async () => {
    const gw = await startGateway("full", { auth: authSection([], { login_rate_per_min: 3 }) });
    try {
      const session = await login(gw.url, "admin", ADMIN_PASSWORD);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await requestJson(`${gw.url}/v1/me/credentials`, {
          method: "PUT",
          token: session,
          body: { current_password: "wrong-password", new_password: "whatever-123" },
        });
        statuses.push(r.status);
        if (r.status === 429) {
          assertError(r, 429, "too_many_requests");
          assert.match(r.headers.get("retry-after") ?? "", /^\d+$/);
        }
      }
      // Login used the `login:IP` key; the credential key has its own three attempts.
      assert.deepEqual(statuses, [422, 422, 422, 429]);
    } finally {
      await gw.stop();
    }
  });
});
