import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stringify } from "yaml";
import { tempDir } from "../harness/gateway-process.js";
import {
  HDHOMERUN_ROUTES,
  M3U_SOURCE_ROUTES,
  SPEC_ROUTES,
  type SpecRoute,
  TS_OUTPUT_ROUTES,
  XTREAM_ROUTES,
} from "../harness/spec-routes.js";
import { authSection } from "../harness/users.js";

/** Built modules, through their packages' exports: the test inspects what each build really registers. */
const load = (specifier: string) => import(specifier);

async function composed(build: "full" | "lite", extensions?: object) {
  const { parseConfig, readEnvironment } = await load("@svc/core/config");
  const { createLogger } = await load("@svc/core/log");
  const dir = tempDir(`svc-routes-${build}-`);
  const yaml = stringify({
    server: { listen: "127.0.0.1:0", data_dir: join(dir, "data") },
    auth: authSection(),
    ...(extensions === undefined ? {} : { extensions }),
  });
  const config = parseConfig(yaml, readEnvironment({}), join(dir, "gateway.yaml"));
  const log = createLogger({ level: "silent", build });
  const mod = await load(`@svc/gateway-${build}/app`);
  const gateway =
    build === "full"
      ? await mod.composeFull({ config, log })
      : await mod.composeLite({ config, log });
  return {
    app: gateway.app as App,
    async close() {
      await gateway.shutdown?.();
      await gateway.afterClose?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type App = {
  routes: { method: string; path: string; handler: object }[];
  get(path: string, handler: () => Response): unknown;
};
interface Row {
  method: string;
  path: string;
  access: { credential: string; scope: string | null };
  extension?: string;
}

function registered(app: App, normalize: (p: string) => string) {
  const out = new Set<string>();
  for (const r of app.routes) if (r.method !== "ALL") out.add(`${r.method} ${normalize(r.path)}`);
  return out;
}

/** Method, path, credential and scope of a row, derived or specified, as one comparable line. */
const lineOf = (r: Row | SpecRoute) =>
  "access" in r
    ? `${r.method} ${r.path} ${r.access.credential} ${r.access.scope}`
    : `${r.method} ${r.path} ${r.credential} ${r.scope}`;
const sorted = (rows: readonly (Row | SpecRoute)[]) => rows.map(lineOf).sort();

describe("route table", async () => {
  const { routeTableOf, normalizeRoutePath } = await load("@svc/core/route-table");
  const { buildOpenApiDocument } = await load("@svc/admin-api/openapi");
  const derived = (app: App): Row[] => routeTableOf(app);
  const spec = SPEC_ROUTES;

  it("the full build derives the spec's 69 routes from its declarations, 43 of them in the API token registry", async () => {
    const full = await composed("full");
    try {
      const table = derived(full.app);
      assert.equal(table.length, 69);
      assert.equal(new Set(table.map((r) => `${r.method} ${r.path}`)).size, 69);
      const scoped = table.filter((r) => r.access.scope !== null);
      assert.equal(scoped.length, 43);
      assert.ok(
        scoped.every((r) => r.access.credential === "admin" || r.access.credential === "reader"),
      );
      assert.equal(table.filter((r) => r.access.credential === "session").length, 8);
      // Credential and scope of every route as the specification lists them.
      assert.deepEqual(sorted(table), sorted(spec));
    } finally {
      await full.close();
    }
  });

  it("lite registers exactly its seven routes", async () => {
    const lite = await composed("lite");
    await lite.close();
    const got = registered(lite.app, normalizeRoutePath);
    const want = new Set(spec.filter((r) => r.lite).map((r) => `${r.method} ${r.path}`));
    assert.equal(want.size, 7);
    assert.deepEqual([...got].sort(), [...want].sort());
    assert.deepEqual(sorted(derived(lite.app)), sorted(spec.filter((r) => r.lite)));
  });

  it("full registers only spec routes, including every route of the admin issue", async () => {
    const full = await composed("full");
    try {
      const got = registered(full.app, normalizeRoutePath);
      const all = new Set(spec.map((r) => `${r.method} ${r.path}`));
      for (const r of got) assert.ok(all.has(r), `full registers ${r}, not in the spec`);
      const landed = [
        "GET /",
        "GET /healthz",
        "GET /readyz",
        "GET /metrics",
        "POST /v1/auth/login",
        "GET /v1/me",
        "GET /v1/channels",
        "GET /v1/status",
        "GET /v1/playlist.m3u",
        "GET /p/{token}/playlist.m3u",
        "GET /v1/play/{id}/index.m3u8",
        "GET /v1/play/{id}/live/{file}",
        "GET /v1/play/{id}/u/{upstream}",
        "GET /p/{token}/play/{id}/index.m3u8",
        "GET /p/{token}/play/{id}/live/{file}",
        "GET /p/{token}/play/{id}/u/{upstream}",
        "PUT /v1/me/credentials",
        "GET /v1/admin/api-tokens",
        "POST /v1/admin/api-tokens",
        "PUT /v1/admin/api-tokens/{id}",
        "POST /v1/admin/api-tokens/{id}/rotate",
        "POST /v1/admin/api-tokens/{id}/revoke",
        "DELETE /v1/admin/api-tokens/{id}",
        "GET /v1/admin/api-token-logs",
        "GET /v1/admin/channels",
        "GET /v1/admin/channels/{id}",
        "POST /v1/admin/channels",
        "PUT /v1/admin/channels/{id}",
        "DELETE /v1/admin/channels/{id}",
        "POST /v1/admin/channels/enable-all",
        "POST /v1/admin/channels/disable-all",
        "PUT /v1/admin/channels/reorder",
        "POST /v1/admin/channels/{id}/preview",
        "POST /v1/admin/channels/{id}/probe",
        "POST /v1/admin/source-probes",
        "GET /v1/admin/upstreams",
        "GET /v1/admin/access-tokens",
        "POST /v1/admin/access-tokens",
        "POST /v1/admin/access-tokens/{id}/revoke",
        "DELETE /v1/admin/access-tokens/{id}",
        "GET /v1/admin/access-logs",
        "DELETE /v1/admin/access-logs",
        "GET /v1/admin/settings",
        "PUT /v1/admin/settings",
        "POST /v1/admin/import/m3u",
        "POST /v1/admin/exports/m3u",
        "GET /v1/admin/egress",
        "PUT /v1/admin/egress",
        "POST /v1/admin/egress/proxies",
        "PUT /v1/admin/egress/proxies/{id}",
        "DELETE /v1/admin/egress/proxies/{id}",
        "POST /v1/admin/egress/rules",
        "PUT /v1/admin/egress/rules/{id}",
        "DELETE /v1/admin/egress/rules/{id}",
        "POST /v1/admin/egress/test",
        "GET /admin",
        "GET /admin/*",
      ];
      for (const r of landed) assert.ok(got.has(r), `full misses ${r}`);
      for (const r of [
        "GET /v1/epg.xml",
        "GET /v1/epg.xml.gz",
        "GET /v1/logo/{id}",
        "GET /v1/admin/epg/presets",
        "GET /v1/admin/epg/sources",
        "POST /v1/admin/epg/sources",
        "PUT /v1/admin/epg/sources/{id}",
        "DELETE /v1/admin/epg/sources/{id}",
        "GET /v1/admin/epg/matches",
        "POST /v1/admin/epg/refresh",
      ])
        assert.ok(got.has(r), `full misses ${r}`);
      // Every route of the spec has landed: the full build registers exactly the 69.
      assert.deepEqual([...got].sort(), [...all].sort());
    } finally {
      await full.close();
    }
  });

  it("the OpenAPI document matches the registered routes exactly", async () => {
    const full = await composed("full");
    try {
      const table = derived(full.app);
      // Built without an app (the console's generated types) and from the app's own table.
      const fromDeclarations = buildOpenApiDocument({ version: "t" });
      const fromApp = buildOpenApiDocument({ version: "t" }, table);
      assert.deepEqual(fromDeclarations, fromApp);
      const ops: Row[] = [];
      for (const item of Object.values<Record<string, any>>(fromApp.paths))
        for (const [method, op] of Object.entries<any>(item))
          ops.push({
            method: method.toUpperCase(),
            path: op["x-route-path"],
            access: { credential: op["x-credential"], scope: op["x-required-scope"] },
          });
      assert.deepEqual(sorted(ops), sorted(table));
    } finally {
      await full.close();
    }
  });

  it("every route of the document says what its success answers: a JSON schema, a media type or no body", async () => {
    const { fullBuildRoutes } = await load("@svc/admin-api/openapi");
    const all = { ts_output: true, m3u_sources: true, xtream: true, hdhomerun: true };
    const doc = buildOpenApiDocument({ version: "t" }, fullBuildRoutes(all));
    const problems: string[] = [];
    let schemas = 0;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths))
      for (const [method, op] of Object.entries<any>(item)) {
        const [status, response] = Object.entries<any>(op.responses).find(([s]) => s < "300")!;
        const content = response.content as Record<string, { schema?: object }> | undefined;
        const line = `${method.toUpperCase()} ${path} ${status}`;
        if (content === undefined) {
          // No body: a 204, or HDHomeRun's empty 200 to lineup.post.
          if (status !== "204" && !path.endsWith("/lineup.post"))
            problems.push(`${line}: no content`);
        } else if (content["application/json"] !== undefined) {
          if (content["application/json"].schema === undefined) problems.push(`${line}: no schema`);
          else schemas++;
        } else if (Object.keys(content).length !== 1)
          problems.push(`${line}: ${Object.keys(content)}`);
      }
    assert.deepEqual(problems, []);
    assert.ok(schemas > 60, `${schemas} JSON answers documented`);
    // A route that answers a body and declares neither a schema nor a media type stops the document.
    const bare = { ...fullBuildRoutes()[0], success: [200, "something"] };
    assert.throws(
      () => buildOpenApiDocument({ version: "t" }, [bare]),
      /answers 200 without a schema or media type/,
    );
  });

  it("a route registered without its declaration stops the route table (and the boot)", async () => {
    const full = await composed("full");
    await full.close();
    full.app.get("/v1/admin/undeclared", () => new Response("no gate knows me"));
    assert.throws(() => derived(full.app), /GET \/v1\/admin\/undeclared has no route declaration/);
  });

  it("extensions.ts_output adds stream.ts to the table, the routes and the OpenAPI document of both builds", async () => {
    const off = buildOpenApiDocument({ version: "t" }) as { paths: Record<string, object> };
    assert.equal(off.paths["/v1/play/{id}/stream.ts"], undefined);
    assert.equal(off.paths["/p/{token}/play/{id}/stream.ts"], undefined);
    for (const build of ["full", "lite"] as const) {
      const gw = await composed(build, { ts_output: true });
      try {
        const on = [...spec, ...TS_OUTPUT_ROUTES].filter((r) => build === "full" || r.lite);
        const got = registered(gw.app, normalizeRoutePath);
        const want = new Set(on.map((r) => `${r.method} ${r.path}`));
        assert.deepEqual([...got].sort(), [...want].sort(), build);
        const table = derived(gw.app);
        assert.deepEqual(sorted(table), sorted(on), build);
        const added = table.filter((r) => r.extension !== undefined).map(lineOf);
        assert.deepEqual(
          added,
          TS_OUTPUT_ROUTES.filter((r) => build === "full" || r.lite).map(lineOf),
        );
        if (build === "full") {
          const doc = buildOpenApiDocument({ version: "t" }, table) as {
            paths: Record<string, object>;
          };
          assert.ok(doc.paths["/v1/play/{id}/stream.ts"]);
          assert.ok(doc.paths["/p/{token}/play/{id}/stream.ts"]);
        }
      } finally {
        await gw.close();
      }
    }
  });
  it("extensions.hdhomerun adds the HDHomeRun device routes to the full build's table and document", async () => {
    const off = buildOpenApiDocument({ version: "t" }) as { paths: Record<string, object> };
    assert.equal(off.paths["/p/{token}/hdhr/discover.json"], undefined);
    const gw = await composed("full", { hdhomerun: { enabled: true } });
    try {
      const on = [...spec, ...HDHOMERUN_ROUTES];
      const got = registered(gw.app, normalizeRoutePath);
      assert.deepEqual(
        [...got].sort(),
        [...new Set(on.map((r) => `${r.method} ${r.path}`))].sort(),
      );
      const table = derived(gw.app);
      assert.deepEqual(sorted(table), sorted(on));
      const added = table.filter((r) => r.extension !== undefined).map(lineOf);
      assert.deepEqual(added.sort(), HDHOMERUN_ROUTES.map(lineOf).sort());
      const doc = buildOpenApiDocument({ version: "t" }, table) as {
        paths: Record<string, object>;
      };
      for (const r of HDHOMERUN_ROUTES) assert.ok(doc.paths[r.path], r.path);
    } finally {
      await gw.close();
    }
    // Switched off (also with its other settings present): exactly the spec's routes.
    const quiet = await composed("full", { hdhomerun: { enabled: false, tuner_count: 2 } });
    try {
      assert.deepEqual(sorted(derived(quiet.app)), sorted(spec));
    } finally {
      await quiet.close();
    }
  });

  it("extensions.xtream adds its routes to the full build's table and OpenAPI document; off, the 69", async () => {
    const off = buildOpenApiDocument({ version: "t" }) as { paths: Record<string, object> };
    assert.equal(off.paths["/player_api.php"], undefined);
    const disabled = await composed("full", { xtream: { enabled: false } });
    try {
      assert.equal(derived(disabled.app).length, 69);
    } finally {
      await disabled.close();
    }
    const gw = await composed("full", { xtream: { enabled: true } });
    try {
      const on = [...spec, ...XTREAM_ROUTES];
      const got = registered(gw.app, normalizeRoutePath);
      assert.deepEqual([...got].sort(), on.map((r) => `${r.method} ${r.path}`).sort());
      const table = derived(gw.app);
      assert.equal(table.length, 69 + XTREAM_ROUTES.length);
      assert.deepEqual(sorted(table), sorted(on));
      // The rotation route is an admin route in the API-token registry with its scope.
      assert.equal(table.filter((r) => r.access.scope !== null).length, 44);
      const doc = buildOpenApiDocument({ version: "t" }, table) as {
        paths: Record<string, Record<string, { "x-extension"?: string }>>;
      };
      assert.equal(doc.paths["/player_api.php"]?.get?.["x-extension"], "xtream");
      assert.ok(doc.paths["/live/{username}/{password}/{stream}"]?.get);
      assert.ok(doc.paths["/v1/admin/access-tokens/{id}/xtream-password"]?.post);
    } finally {
      await gw.close();
    }
  });

  it("extensions.m3u_sources adds the seven M3U source routes to the full build's table, registry and OpenAPI document", async () => {
    const off = buildOpenApiDocument({ version: "t" }) as { paths: Record<string, object> };
    assert.equal(off.paths["/v1/admin/m3u-sources"], undefined);
    const gw = await composed("full", { m3u_sources: true });
    try {
      const on = [...spec, ...M3U_SOURCE_ROUTES];
      const got = registered(gw.app, normalizeRoutePath);
      assert.deepEqual(
        [...got].sort(),
        [...new Set(on.map((r) => `${r.method} ${r.path}`))].sort(),
      );
      const table = derived(gw.app);
      assert.equal(table.length, 76);
      assert.equal(table.filter((r) => r.access.scope !== null).length, 50);
      assert.deepEqual(sorted(table), sorted(on));
      const added = table.filter((r) => r.extension !== undefined).map(lineOf);
      assert.deepEqual(added.sort(), sorted(M3U_SOURCE_ROUTES));
      const doc = buildOpenApiDocument({ version: "t" }, table) as {
        paths: Record<string, Record<string, object>>;
      };
      assert.ok(doc.paths["/v1/admin/m3u-sources"]?.get);
      assert.ok(doc.paths["/v1/admin/m3u-sources/{id}"]?.put);
      assert.ok(doc.paths["/v1/admin/m3u-sources/{id}/refresh"]?.post);
    } finally {
      await gw.close();
    }
    // The lite build has no admin API: the switch adds nothing there.
    const lite = await composed("lite", { m3u_sources: true });
    await lite.close();
    assert.deepEqual(sorted(derived(lite.app)), sorted(spec.filter((r) => r.lite)));
  });
});
