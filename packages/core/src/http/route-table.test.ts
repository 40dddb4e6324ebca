import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono } from "hono";
import * as v from "valibot";
import {
  createRouteMatcher,
  defineRoutes,
  familyRows,
  normalizeRoutePath,
  PUBLIC,
  type RouteRow,
  routeAnswerOf,
  routeOf,
  routesOf,
  routeTableOf,
} from "./route-table.js";

const doc = { tag: "t", success: [200, "ok"] } as const;
const items = defineRoutes("/v1/items", {
  list: { method: "GET", path: "/", access: PUBLIC, summary: "List", ...doc },
  reorder: { method: "PUT", path: "/reorder", access: PUBLIC, summary: "Reorder", ...doc },
  one: {
    method: "GET",
    path: "/:id",
    access: { credential: "x", scope: "read" },
    summary: "One",
    ...doc,
  },
  put: { method: "PUT", path: "/:id", access: PUBLIC, summary: "Put", ...doc },
  raw: {
    method: "GET",
    path: "/:id/raw",
    access: PUBLIC,
    summary: "Raw",
    extension: "ts_output",
    ...doc,
  },
});

function itemsApp(switches = {}) {
  const app = new Hono();
  app.use(async (c, next) => {
    const row = routeOf(c);
    c.header("x-route", row === undefined ? "none" : `${row.method} ${row.path}`);
    await next();
  });
  app.route(
    items.base,
    routesOf(
      items,
      {
        list: (c) => c.text("list"),
        reorder: (c) => c.text("reorder"),
        one: (c) => c.text(`one ${c.req.param("id")}`),
        put: (c) => c.text("put"),
        raw: (c) => c.text("raw"),
      },
      switches,
    ),
  );
  return app;
}

const keys = (rows: readonly RouteRow[]) => rows.map((r) => `${r.method} ${r.path}`);

describe("route declarations", () => {
  it("derives the table from what the app registered, under the family's base", () => {
    assert.deepEqual(keys(routeTableOf(itemsApp())), [
      "GET /v1/items",
      "PUT /v1/items/reorder",
      "GET /v1/items/{id}",
      "PUT /v1/items/{id}",
    ]);
    const one = routeTableOf(itemsApp()).find((r) => r.summary === "One");
    assert.deepEqual(one?.access, { credential: "x", scope: "read" });
  });

  it("registers an extension's route only when its switch is on", () => {
    assert.ok(keys(routeTableOf(itemsApp({ ts_output: true }))).includes("GET /v1/items/{id}/raw"));
    assert.equal(familyRows(items, {}).length, 4);
    assert.equal(familyRows(items).length, 5);
    assert.deepEqual(keys(familyRows(items, {})), keys(routeTableOf(itemsApp())));
  });

  it("stops on a route registered without a declaration", () => {
    const app = itemsApp();
    app.get("/v1/secret", (c) => c.text("no gate knows me"));
    assert.throws(() => routeTableOf(app), /GET \/v1\/secret has no route declaration/);
  });

  it("stops on a family mounted away from its declared base", () => {
    const app = new Hono();
    app.route(
      "/elsewhere",
      routesOf(items, {
        list: (c) => c.text("list"),
        reorder: (c) => c.text("reorder"),
        one: (c) => c.text("one"),
        put: (c) => c.text("put"),
        raw: (c) => c.text("raw"),
      }),
    );
    assert.throws(() => routeTableOf(app), /GET \/elsewhere is declared as GET \/v1\/items/);
  });

  it("tells middleware the declaration of the route that answers, HEAD as GET", async () => {
    const app = itemsApp();
    const cases: [string, string, string, string][] = [
      ["GET", "/v1/items", "GET /v1/items", "list"],
      ["PUT", "/v1/items/reorder", "PUT /v1/items/reorder", "reorder"],
      ["GET", "/v1/items/reorder", "GET /v1/items/{id}", "one reorder"],
      ["HEAD", "/v1/items/a", "GET /v1/items/{id}", ""],
      ["GET", "/v1/items/a/raw", "none", "404 Not Found"],
      ["DELETE", "/v1/items/a", "none", "404 Not Found"],
    ];
    for (const [method, path, route, body] of cases) {
      const res = await app.request(path, { method });
      assert.equal(res.headers.get("x-route"), route, `${method} ${path}`);
      assert.equal(await res.text(), body, `${method} ${path}`);
    }
  });

  it("reads a route's answer: a schema, a media type, no body; a body undeclared stops", () => {
    const at = { method: "GET", path: "/x" } as const;
    const schema = v.strictObject({ items: v.array(v.string()) });
    assert.deepEqual(routeAnswerOf({ ...at, success: [200, "`{items}`", schema] }), { schema });
    assert.deepEqual(routeAnswerOf({ ...at, success: [200, "M3U", "audio/x-mpegurl"] }), {
      mediaType: "audio/x-mpegurl",
    });
    assert.deepEqual(routeAnswerOf({ ...at, success: [204, "No body"] }), {});
    assert.deepEqual(routeAnswerOf({ ...at, success: [200, "empty", null] }), {});
    assert.throws(
      () => routeAnswerOf({ ...at, success: [200, "`{items}`"] }),
      /GET \/x: answers 200 without a schema or media type/,
    );
  });

  it("normalizes hono paths to the table's form", () => {
    assert.equal(normalizeRoutePath("/v1/admin/channels/:id"), "/v1/admin/channels/{id}");
    assert.equal(normalizeRoutePath("/v1/play/:id/live/:file{.+}"), "/v1/play/{id}/live/{file}");
    assert.equal(normalizeRoutePath("/"), "/");
  });
});

describe("route matcher outside hono", () => {
  it("maps each row's concrete request back to it, static segments first, HEAD as GET", () => {
    const rows = familyRows(items);
    const m = createRouteMatcher(rows);
    for (const row of rows) {
      const path = row.path.replace(/\{[^}]+\}/g, "x1");
      assert.equal(m.match(row.method, path), row, `${row.method} ${path}`);
    }
    assert.equal(m.match("PUT", "/v1/items/reorder")?.summary, "Reorder");
    assert.equal(m.match("HEAD", "/v1/items/a")?.summary, "One");
    assert.equal(m.match("PATCH", "/v1/items/a"), undefined);
    assert.equal(m.match("GET", "/v1/items/a/b"), undefined);
  });
});
