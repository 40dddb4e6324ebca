import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRouteMatcher, normalizeRoutePath, ROUTE_TABLE } from "./route-table.js";

describe("route table matcher", () => {
  const routes = createRouteMatcher();

  it("maps a concrete request of every row back to that row", () => {
    for (const row of ROUTE_TABLE) {
      const path = row.path.replace(/\{[^}]+\}/g, "x1").replace("*", "assets/app.js");
      assert.equal(routes.match(row.method, path), row, `${row.method} ${path}`);
    }
  });

  it("prefers static segments, maps HEAD to GET, and knows nothing else", () => {
    const cases: [string, string, string | undefined][] = [
      ["PUT", "/v1/admin/channels/reorder", "/v1/admin/channels/reorder"],
      ["POST", "/v1/admin/channels/enable-all", "/v1/admin/channels/enable-all"],
      ["GET", "/v1/admin/channels/enable-all", "/v1/admin/channels/{id}"],
      ["HEAD", "/v1/me", "/v1/me"],
      ["GET", "/admin", "/admin"],
      ["GET", "/admin/", "/admin/*"],
      ["PATCH", "/v1/me", undefined],
      ["GET", "/v1/me/extra", undefined],
      ["GET", "/v1/admin/channels/a/b", undefined],
      ["GET", "/nowhere", undefined],
    ];
    for (const [method, path, want] of cases) {
      assert.equal(routes.match(method, path)?.path, want, `${method} ${path}`);
    }
  });

  it("normalizes hono paths to the table's form", () => {
    assert.equal(normalizeRoutePath("/v1/admin/channels/:id"), "/v1/admin/channels/{id}");
    assert.equal(normalizeRoutePath("/v1/play/:id/live/:file{.+}"), "/v1/play/{id}/live/{file}");
    assert.equal(normalizeRoutePath("/"), "/");
  });
});
