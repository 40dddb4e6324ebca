import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stringify } from "yaml";
import { tempDir } from "../harness/gateway-process.js";
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
    app: gateway.app as { routes: { method: string; path: string }[] },
    async close() {
      await gateway.shutdown?.();
      await gateway.afterClose?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function registered(
  app: { routes: { method: string; path: string }[] },
  normalize: (p: string) => string,
) {
  const out = new Set<string>();
  for (const r of app.routes) if (r.method !== "ALL") out.add(`${r.method} ${normalize(r.path)}`);
  return out;
}

describe("route table", async () => {
  const { ROUTE_TABLE, normalizeRoutePath } = await load("@svc/core/route-table");
  const table: {
    method: string;
    path: string;
    scope: string | null;
    lite: boolean;
    credential: string;
  }[] = ROUTE_TABLE;

  it("holds the spec's 69 routes, 43 of them in the API token registry", () => {
    assert.equal(table.length, 69);
    assert.equal(new Set(table.map((r) => `${r.method} ${r.path}`)).size, 69);
    const scoped = table.filter((r) => r.scope !== null);
    assert.equal(scoped.length, 43);
    assert.ok(scoped.every((r) => r.credential === "admin" || r.credential === "reader"));
    assert.equal(table.filter((r) => r.credential === "session").length, 8);
  });

  it("lite registers exactly its seven routes", async () => {
    const lite = await composed("lite");
    await lite.close();
    const got = registered(lite.app, normalizeRoutePath);
    const want = new Set(table.filter((r) => r.lite).map((r) => `${r.method} ${r.path}`));
    assert.equal(want.size, 7);
    assert.deepEqual([...got].sort(), [...want].sort());
  });

  it("full registers only spec routes, including every route of the admin issue", async () => {
    const full = await composed("full");
    try {
      const got = registered(full.app, normalizeRoutePath);
      const all = new Set(table.map((r) => `${r.method} ${r.path}`));
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

  it("extensions.ts_output adds stream.ts to the table, the routes and the OpenAPI document of both builds", async () => {
    const { routeTableFor } = await load("@svc/core/route-table");
    const { buildOpenApiDocument } = await load("@svc/admin-api/openapi");
    const on: typeof table = routeTableFor({ ts_output: true });
    assert.equal(routeTableFor({ ts_output: false }), ROUTE_TABLE);
    const added = on.slice(table.length).map((r) => [r.method, r.path, r.credential, r.scope]);
    assert.deepEqual(added, [
      ["GET", "/v1/play/{id}/stream.ts", "play", null],
      ["GET", "/p/{token}/play/{id}/stream.ts", "playback_key", null],
    ]);
    const doc = buildOpenApiDocument({ version: "t" }, on) as { paths: Record<string, object> };
    assert.ok(doc.paths["/v1/play/{id}/stream.ts"]);
    assert.ok(doc.paths["/p/{token}/play/{id}/stream.ts"]);
    const off = buildOpenApiDocument({ version: "t" }) as { paths: Record<string, object> };
    assert.equal(off.paths["/v1/play/{id}/stream.ts"], undefined);
    for (const build of ["full", "lite"] as const) {
      const gw = await composed(build, { ts_output: true });
      try {
        const got = registered(gw.app, normalizeRoutePath);
        const want = new Set(
          on.filter((r) => build === "full" || r.lite).map((r) => `${r.method} ${r.path}`),
        );
        assert.deepEqual([...got].sort(), [...want].sort(), build);
      } finally {
        await gw.close();
      }
    }
  });
});
