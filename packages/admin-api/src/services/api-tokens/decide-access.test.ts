import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRouteMatcher } from "@svc/core/route-table";
import { fullBuildRoutes } from "../../openapi/full-build-routes.js";
import type { ApiTokenCheck } from "./authenticate.js";
import { decideTokenAccess } from "./decide-access.js";
import type { ApiTokenRecord } from "./token-record.js";

const routes = createRouteMatcher(fullBuildRoutes());

function token(scopes: string[]): ApiTokenRecord {
  return {
    id: "at_1",
    name: "t",
    note: "",
    tokenPrefix: "svc_v1_abcde",
    digest: "00",
    scopes,
    enabled: true,
    createdBy: "admin",
    createdAt: 0,
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: null,
    revision: 1,
    updatedAt: 0,
  };
}

const ok = (scopes: string[]): ApiTokenCheck => ({ ok: true, token: token(scopes) });

describe("API token access decisions over the route table", () => {
  const cases: [string, ApiTokenCheck, string, string, string | true, number?][] = [
    ["read allows channel list", ok(["read"]), "GET", "/v1/admin/channels", true],
    ["read allows HEAD as GET", ok(["read"]), "HEAD", "/v1/me", true],
    ["write allows reorder", ok(["write"]), "PUT", "/v1/admin/channels/reorder", true],
    ["delete allows channel delete", ok(["delete"]), "DELETE", "/v1/admin/channels/x", true],
    ["refresh allows preview", ok(["refresh"]), "POST", "/v1/admin/channels/x/preview", true],
    ["write does not imply read", ok(["write"]), "GET", "/v1/me", "missing_scope", 403],
    ["read cannot write", ok(["read"]), "PUT", "/v1/admin/channels/x", "missing_scope", 403],
    [
      "delete cannot revoke tokens",
      ok(["delete"]),
      "POST",
      "/v1/admin/api-tokens/x/revoke",
      "session_required",
      403,
    ],
    [
      "credentials are session-only",
      ok(["write"]),
      "PUT",
      "/v1/me/credentials",
      "session_required",
      403,
    ],
    ["unknown path", ok(["read"]), "GET", "/v1/admin/nothing", "route_not_available", 403],
    ["unknown method", ok(["write"]), "PATCH", "/v1/admin/channels/x", "route_not_available", 403],
    [
      "revoked first",
      { ok: false, reason: "revoked", token: token(["read"]) },
      "GET",
      "/v1/me",
      "revoked",
      401,
    ],
    [
      "expired",
      { ok: false, reason: "expired", token: token(["read"]) },
      "GET",
      "/v1/me",
      "expired",
      401,
    ],
    [
      "invalid",
      { ok: false, reason: "invalid", token: undefined },
      "PUT",
      "/v1/me/credentials",
      "invalid",
      401,
    ],
  ];
  for (const [name, check, method, path, want, status] of cases) {
    it(name, () => {
      const d = decideTokenAccess(check, routes.match(method, path));
      if (want === true) {
        assert.equal(d.allow, true);
        return;
      }
      assert.equal(d.allow, false);
      if (d.allow) return;
      assert.equal(d.reason, want);
      assert.equal(d.error.status, status);
      // Issue 12 item 10: a 403 answers with the audit reason as its code.
      assert.equal(d.error.code, status === 403 ? want : "unauthorized");
    });
  }

  it("matches static segments before placeholders", () => {
    assert.equal(
      routes.match("PUT", "/v1/admin/channels/reorder")?.path,
      "/v1/admin/channels/reorder",
    );
    assert.equal(routes.match("PUT", "/v1/admin/channels/abc")?.path, "/v1/admin/channels/{id}");
    assert.equal(routes.match("GET", "/p/KEY/play/ch/u/abc.ts")?.access.credential, "playback_key");
  });
});
