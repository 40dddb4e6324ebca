import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection, VIEWER_PASSWORD } from "../harness/users.js";

// Every JSON answer the full binary gives along a realistic sequence (create, read, list,
// update and delete of every resource, status, me, guide, egress, settings, the M3U import,
// the extensions' routes) is validated against the answer its route declares: the valibot
// schema of its success status (the same schema the OpenAPI document's response is
// converted from), or for an error status the one error shape with a code the document
// lists for that route and status. The answer objects are strict where the spec fixes the
// fields, so a field a handler adds without declaring it fails here. Loopback only: the
// origin below listens on 127.0.0.1 (in security.allowed_hosts).

/** Built modules, through their packages' exports. */
const load = (specifier: string) => import(specifier);

interface StandardSchema {
  readonly "~standard": {
    validate(value: unknown): { issues?: readonly { message: string; path?: unknown }[] };
  };
}
interface Row {
  method: string;
  path: string;
  success: readonly [number, string, (StandardSchema | string | null)?];
}

const XMLTV = `<?xml version="1.0" encoding="UTF-8"?>
<tv>
  <channel id="news.src"><display-name>News</display-name></channel>
  <channel id="films.src"><display-name>Films Channel</display-name></channel>
  <programme start="20260101000000 +0000" stop="20300101000000 +0000" channel="news.src"><title>All news</title></programme>
</tv>
`;

/** A loopback origin: a live HLS playlist, an XMLTV file and an M3U list. */
async function startOrigin(): Promise<{ url: string; close(): Promise<void> }> {
  let base = "";
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (path === "/live/index.m3u8") {
      res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
      res.end("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:1\n#EXTINF:4.0,\nseg1.ts\n");
    } else if (path === "/guide.xml") {
      res.writeHead(200, { "content-type": "application/xml" });
      res.end(XMLTV);
    } else if (path === "/list.m3u") {
      res.writeHead(200, { "content-type": "audio/x-mpegurl" });
      res.end(
        `#EXTM3U\n#EXTINF:-1 tvg-id="films.src" group-title="Films",Films\n${base}/films/index.m3u8\n`,
      );
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("full: every JSON answer matches the schema its route declares", () => {
  let gw: GatewayProcess;
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let admin: string;
  let rows: Row[];
  let match: (method: string, path: string) => Row | undefined;
  let errorCodes: (method: string, path: string, status: number) => string[] | undefined;
  /** `METHOD path status` of every answer validated. */
  const validated = new Set<string>();
  /** The last valid JSON answer of each route and status, for the strictness check. */
  const samples = new Map<string, { row: Row; body: unknown }>();
  const failures: string[] = [];

  /** One request; its answer, when JSON, validated against its route's declaration. */
  async function call(
    method: string,
    url: string,
    init: {
      token?: string;
      body?: unknown;
      ifMatch?: number;
      headers?: Record<string, string>;
    } = {},
  ) {
    const r = await requestJson(`${gw.url}${url}`, {
      method,
      ...(init.token === undefined ? {} : { token: init.token }),
      ...(init.body === undefined ? {} : { body: init.body }),
      headers: {
        ...init.headers,
        ...(init.ifMatch === undefined ? {} : { "if-match": `"${init.ifMatch}"` }),
      },
    });
    const path = new URL(url, "http://x").pathname;
    const row = match(method, path);
    const where = `${method} ${path} → ${r.status}`;
    if (row === undefined) {
      failures.push(`${where}: no route declares it`);
      return r;
    }
    const json = (r.headers.get("content-type") ?? "").startsWith("application/json");
    const [status, , answer] = row.success;
    if (r.status === status) {
      if (answer !== undefined && answer !== null && typeof answer !== "string") {
        if (!json)
          failures.push(`${where}: declared JSON, answered ${r.headers.get("content-type")}`);
        const result = answer["~standard"].validate(r.body);
        if (result.issues !== undefined)
          failures.push(
            `${where}: ${result.issues.map((i) => `${JSON.stringify(i.path ?? [])} ${i.message}`).join("; ")} in ${r.text.slice(0, 400)}`,
          );
        validated.add(`${row.method} ${row.path} ${status}`);
        samples.set(`${row.method} ${row.path}`, { row, body: r.body });
      } else if (json) failures.push(`${where}: JSON answer, declared ${String(answer)}`);
    } else if (r.status >= 400) {
      const codes = errorCodes(row.method, row.path, r.status);
      const e = r.body?.error;
      const shape =
        json &&
        Object.keys(r.body ?? {}).join() === "error" &&
        Object.keys(e ?? {})
          .sort()
          .join() === "code,message" &&
        typeof e.code === "string" &&
        typeof e.message === "string";
      if (!shape) failures.push(`${where}: not the error shape: ${r.text.slice(0, 200)}`);
      else if (codes === undefined || !codes.includes(e.code))
        failures.push(`${where}: error ${e.code} not documented (${codes?.join(", ") ?? "none"})`);
      else validated.add(`${row.method} ${row.path} ${r.status}`);
    } else if (r.status !== 302 && r.status !== 307 && r.status !== 304)
      failures.push(`${where}: undeclared status (declared ${status})`);
    return r;
  }

  const ok = (r: { status: number; text: string }, status: number) =>
    assert.equal(r.status, status, r.text);

  before(async () => {
    origin = await startOrigin();
    const extensions = {
      ts_output: true,
      m3u_sources: true,
      xtream: { enabled: true },
      hdhomerun: { enabled: true },
    };
    gw = await startGateway("full", {
      auth: authSection(["news"], { login_rate_per_min: 1000 }),
      security: { allowed_hosts: ["127.0.0.1"] },
      guide: { refresh_interval_min: 10_000, logo_repositories: [] },
      upstreams: [{ id: "origin", base_url: `${origin.url}/`, max_connections: 4 }],
      channels: [
        {
          id: "news",
          title: "News",
          ingress: "hls",
          source_url: `${origin.url}/live/index.m3u8`,
          headers: { Authorization: "Bearer upstream-secret" },
          epg_id: "news.src",
        },
      ],
      extensions,
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
    const { fullBuildRoutes } = await load("@svc/admin-api/openapi");
    const { createRouteMatcher } = await load("@svc/core/route-table");
    rows = fullBuildRoutes(extensions);
    match = createRouteMatcher(rows).match;
    // The document the binary serves: the error codes of each route and status.
    const doc = await requestJson(`${gw.url}/admin/assets/openapi.json`);
    ok(doc, 200);
    errorCodes = (method, path, status) =>
      doc.body.paths[path.replace(/\*$/, "{asset}")]?.[method.toLowerCase()]?.responses?.[
        String(status)
      ]?.["x-error-codes"];
  });

  after(async () => {
    await gw?.stop();
    await origin?.close();
  });

  it("public, me, status and the read routes", async () => {
    ok(await call("GET", "/"), 200);
    ok(await call("GET", "/healthz"), 200);
    ok(await call("GET", "/readyz"), 200);
    ok(await call("POST", "/v1/auth/login", { body: { username: "admin", password: "x" } }), 401);
    ok(
      await call("POST", "/v1/auth/login", {
        body: { username: "admin", password: ADMIN_PASSWORD },
      }),
      200,
    );
    ok(await call("POST", "/v1/auth/login", { body: { username: "admin" } }), 400);
    ok(await call("GET", "/v1/me", { token: admin }), 200);
    ok(await call("GET", "/v1/me"), 401);
    const viewer = await login(gw.url, "viewer", VIEWER_PASSWORD);
    ok(await call("GET", "/v1/me", { token: viewer }), 200);
    ok(await call("GET", "/v1/channels", { token: viewer }), 200);
    ok(await call("GET", "/v1/admin/channels", { token: viewer }), 403);
    ok(await call("GET", "/v1/channels", { token: admin }), 200);
    ok(await call("GET", "/v1/status", { token: admin }), 200);
    ok(await call("GET", "/v1/admin/upstreams", { token: admin }), 200);
  });

  it("channels: create, read, list, replace, bulk, reorder, probe, preview, warmup, delete", async () => {
    const created = await call("POST", "/v1/admin/channels", {
      token: admin,
      body: {
        id: "films",
        title: "Films",
        ingress: "hls",
        source_url: `${origin.url}/live/index.m3u8`,
        headers: { "X-Api-Token": "secret" },
        fallback_sources: [{ source_url: `${origin.url}/live/index.m3u8` }],
        egress: { mode: "direct" },
      },
    });
    ok(created, 201);
    ok(await call("POST", "/v1/admin/channels", { token: admin, body: { id: "x" } }), 400);
    const detail = await call("GET", "/v1/admin/channels/films", { token: admin });
    ok(detail, 200);
    ok(await call("GET", "/v1/admin/channels/none", { token: admin }), 404);
    ok(await call("GET", "/v1/admin/channels", { token: admin }), 200);
    const replaced = await call("PUT", "/v1/admin/channels/films", {
      token: admin,
      ifMatch: detail.body.revision,
      body: {
        id: "films",
        title: "Films 2",
        ingress: "hls",
        upstream: "origin",
        path: "live/index.m3u8",
        epg_id: "films.src",
        fallback_sources: [{ source_url: `${origin.url}/live/index.m3u8` }],
      },
    });
    ok(replaced, 200);
    ok(
      await call("PUT", "/v1/admin/channels/films", {
        token: admin,
        ifMatch: 999,
        body: { id: "films", title: "F", ingress: "hls", source_url: `${origin.url}/x.m3u8` },
      }),
      409,
    );
    ok(await call("POST", "/v1/admin/channels/disable-all", { token: admin }), 200);
    ok(await call("POST", "/v1/admin/channels/enable-all", { token: admin }), 200);
    const list = await call("GET", "/v1/admin/channels", { token: admin });
    const revisions = Object.fromEntries(
      list.body.channels.map((c: { id: string; revision: number }) => [c.id, c.revision]),
    );
    ok(
      await call("PUT", "/v1/admin/channels/reorder", {
        token: admin,
        body: { ids: ["films", "news"], revisions },
      }),
      200,
    );
    ok(await call("POST", "/v1/admin/channels/news/probe", { token: admin }), 200);
    ok(
      await call("POST", "/v1/admin/source-probes", {
        token: admin,
        body: { title: "Draft", ingress: "hls", source_url: `${origin.url}/live/index.m3u8` },
      }),
      200,
    );
    ok(await call("POST", "/v1/admin/channels/news/preview", { token: admin }), 201);
    ok(await call("POST", "/v1/admin/channels/news/warmup", { token: admin }), 409);
    ok(await call("POST", "/v1/admin/channels/films/warmup", { token: admin }), 202);
    ok(await call("GET", "/v1/status", { token: admin }), 200);
    ok(await call("DELETE", "/v1/admin/sessions/films", { token: admin }), 204);
    ok(await call("DELETE", "/v1/admin/sessions/films", { token: admin }), 404);
    const scratch = await call("POST", "/v1/admin/channels", {
      token: admin,
      body: { id: "scratch", title: "S", ingress: "hls", source_url: `${origin.url}/s.m3u8` },
    });
    ok(scratch, 201);
    ok(await call("DELETE", "/v1/admin/channels/scratch", { token: admin }), 200);
  });

  it("API tokens: create, list, update, rotate, revoke, delete, audit log", async () => {
    const created = await call("POST", "/v1/admin/api-tokens", {
      token: admin,
      body: { name: "ci", scopes: ["read"], expires_in_sec: 3600 },
    });
    ok(created, 201);
    ok(await call("POST", "/v1/admin/api-tokens", { token: admin, body: { name: "x" } }), 400);
    const token = created.body.token as string;
    ok(await call("GET", "/v1/me", { token }), 200);
    ok(await call("GET", "/v1/admin/channels", { token }), 200);
    ok(await call("POST", "/v1/admin/channels/enable-all", { token }), 403);
    ok(await call("GET", "/v1/admin/api-tokens", { token }), 403);
    ok(await call("GET", "/v1/admin/api-tokens", { token: admin }), 200);
    const id = created.body.credential.id as string;
    const updated = await call("PUT", `/v1/admin/api-tokens/${id}`, {
      token: admin,
      ifMatch: created.body.credential.revision,
      body: { note: "for CI", scopes: ["read", "write"] },
    });
    ok(updated, 200);
    const rotated = await call("POST", `/v1/admin/api-tokens/${id}/rotate`, {
      token: admin,
      ifMatch: updated.body.credential.revision,
    });
    ok(rotated, 201);
    ok(
      await call("POST", `/v1/admin/api-tokens/${id}/revoke`, {
        token: admin,
        ifMatch: rotated.body.credential.revision,
      }),
      200,
    );
    ok(await call("GET", "/v1/admin/api-token-logs", { token: admin }), 200);
    const list = await call("GET", "/v1/admin/api-tokens", { token: admin });
    const revision = list.body.tokens.find((t: { id: string }) => t.id === id).revision;
    ok(
      await call("DELETE", `/v1/admin/api-tokens/${id}`, { token: admin, ifMatch: revision }),
      204,
    );
  });

  it("playback keys, key playlists, access logs, HDHomeRun and Xtream", async () => {
    const key = await call("POST", "/v1/admin/access-tokens", {
      token: admin,
      body: { name: "tv", channel_ids: [], max_connections: 2, xtream_username: "tv-user" },
    });
    ok(key, 201);
    ok(await call("GET", "/v1/admin/access-tokens", { token: admin }), 200);
    const plain = key.body.token as string;
    ok(await call("GET", `/p/${plain}/playlist.m3u`), 200);
    ok(await call("GET", `/p/${plain}/hdhr/discover.json`), 200);
    ok(await call("GET", `/p/${plain}/hdhr/lineup.json`), 200);
    ok(await call("GET", `/p/${plain}/hdhr/lineup_status.json`), 200);
    ok(await call("POST", `/p/${plain}/hdhr/lineup.post`), 200);
    ok(await call("GET", "/p/v1nottherealkey/hdhr/discover.json"), 401);
    const password = key.body.xtream_password as string;
    const xt = (q: string) => `/player_api.php?username=tv-user&password=${password}${q}`;
    ok(await call("GET", xt("")), 200);
    ok(await call("GET", xt("&action=get_live_categories")), 200);
    const streams = await call("GET", xt("&action=get_live_streams"));
    ok(streams, 200);
    const stream = `&stream_id=${streams.body[0].stream_id}`;
    ok(await call("GET", xt(`&action=get_short_epg${stream}`)), 200);
    ok(await call("GET", xt(`&action=get_simple_data_table${stream}`)), 200);
    ok(await call("GET", xt("&action=get_vod_categories")), 200);
    ok(await call("GET", "/player_api.php?username=tv-user&password=wrong"), 200);
    ok(
      await call("POST", "/player_api.php", {
        body: `username=tv-user&password=${password}&action=get_live_categories`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      200,
    );
    const renewed = await call("POST", `/v1/admin/access-tokens/${key.body.id}/xtream-password`, {
      token: admin,
    });
    ok(renewed, 200);
    ok(await call("GET", "/v1/admin/access-logs?limit=10", { token: admin }), 200);
    ok(await call("GET", "/v1/admin/access-logs?limit=0", { token: admin }), 400);
    ok(await call("POST", `/v1/admin/access-tokens/${key.body.id}/revoke`, { token: admin }), 200);
    ok(await call("DELETE", `/v1/admin/access-tokens/${key.body.id}`, { token: admin }), 200);
    ok(await call("DELETE", `/v1/admin/access-tokens/${key.body.id}`, { token: admin }), 404);
    ok(await call("DELETE", "/v1/admin/access-logs", { token: admin }), 200);
  });

  it("settings and egress", async () => {
    const settings = await call("GET", "/v1/admin/settings", { token: admin });
    ok(settings, 200);
    ok(
      await call("PUT", "/v1/admin/settings", {
        token: admin,
        ifMatch: settings.body.revision,
        body: { public_base_url: "", access_log_retention_days: "60" },
      }),
      200,
    );
    ok(
      await call("PUT", "/v1/admin/settings", {
        token: admin,
        body: { public_base_url: "", access_log_retention_days: "60" },
      }),
      409,
    );
    const egress = await call("GET", "/v1/admin/egress", { token: admin });
    ok(egress, 200);
    const proxy = await call("POST", "/v1/admin/egress/proxies", {
      token: admin,
      ifMatch: egress.body.revision,
      body: { id: "p1", name: "Proxy", url: "http://user:pw@127.0.0.1:3128" },
    });
    ok(proxy, 201);
    const proxy2 = await call("PUT", "/v1/admin/egress/proxies/p1", {
      token: admin,
      ifMatch: proxy.body.egress.revision,
      body: { id: "p1", name: "Proxy 1", url: "http://127.0.0.1:3128" },
    });
    ok(proxy2, 200);
    const rule = await call("POST", "/v1/admin/egress/rules", {
      token: admin,
      ifMatch: proxy2.body.egress.revision,
      body: { id: "r1", kind: "host_suffix", pattern: "example.test", proxy: "p1" },
    });
    ok(rule, 201);
    const rule2 = await call("PUT", "/v1/admin/egress/rules/r1", {
      token: admin,
      ifMatch: rule.body.egress.revision,
      body: { id: "r1", kind: "host_exact", pattern: "cdn.example.test", proxy: "p1" },
    });
    ok(rule2, 200);
    const noRule = await call("DELETE", "/v1/admin/egress/rules/r1", {
      token: admin,
      ifMatch: rule2.body.egress.revision,
    });
    ok(noRule, 200);
    const noProxy = await call("DELETE", "/v1/admin/egress/proxies/p1", {
      token: admin,
      ifMatch: noRule.body.egress.revision,
    });
    ok(noProxy, 200);
    const current = await call("GET", "/v1/admin/egress", { token: admin });
    const { source: _s, revision, proxies: _p, rules: _r, ...writable } = current.body;
    ok(
      await call("PUT", "/v1/admin/egress", {
        token: admin,
        ifMatch: revision,
        body: { ...writable, proxies: [], rules: [] },
      }),
      200,
    );
    ok(
      await call("POST", "/v1/admin/egress/test", {
        token: admin,
        body: { target: "custom", url: `${origin.url}/live/index.m3u8` },
      }),
      200,
    );
    ok(
      await call("POST", "/v1/admin/egress/test", {
        token: admin,
        body: { target: "custom", url: `${origin.url}/missing` },
      }),
      200,
    );
  });

  it("guide sources, matches and refresh; the M3U import, export and provider sources", async () => {
    ok(await call("GET", "/v1/admin/epg/presets", { token: admin }), 200);
    ok(await call("POST", "/v1/admin/epg/refresh", { token: admin }), 409);
    const source = await call("POST", "/v1/admin/epg/sources", {
      token: admin,
      body: { id: "loop", name: "Loop", url: `${origin.url}/guide.xml` },
    });
    ok(source, 201);
    ok(await call("POST", "/v1/admin/epg/refresh", { token: admin }), 200);
    const sources = await call("GET", "/v1/admin/epg/sources", { token: admin });
    ok(sources, 200);
    const loop = sources.body.sources.find(
      (s: { source: { id: string } }) => s.source.id === "loop",
    );
    const updated = await call("PUT", "/v1/admin/epg/sources/loop", {
      token: admin,
      ifMatch: loop.revision,
      body: { name: "Loop 2" },
    });
    ok(updated, 200);
    ok(await call("GET", "/v1/admin/epg/matches", { token: admin }), 200);
    ok(await call("GET", "/v1/epg.xml"), 200);
    const after = await call("GET", "/v1/admin/epg/sources", { token: admin });
    const rev = after.body.sources.find((s: { source: { id: string } }) => s.source.id === "loop");
    ok(
      await call("DELETE", "/v1/admin/epg/sources/loop", { token: admin, ifMatch: rev.revision }),
      200,
    );
    ok(await call("DELETE", "/v1/admin/epg/sources/epgpw-gb", { token: admin }), 200);

    const content = `#EXTM3U\n#EXTINF:-1 tvg-id="a.src" tvg-chno="7" group-title="A",Alpha\n${origin.url}/a.m3u8\n#EXTINF:-1,News\n${origin.url}/live/index.m3u8\n`;
    const preview = await call("POST", "/v1/admin/import/m3u", { token: admin, body: { content } });
    ok(preview, 200);
    ok(
      await call("POST", "/v1/admin/import/m3u", {
        token: admin,
        body: { content, apply: true, revisions: preview.body.revisions },
      }),
      200,
    );
    ok(
      await call("POST", "/v1/admin/import/m3u", {
        token: admin,
        body: { content, duplicates: "fallbacks" },
      }),
      200,
    );
    ok(await call("POST", "/v1/admin/import/m3u", { token: admin, body: {} }), 400);
    ok(await call("POST", "/v1/admin/exports/m3u", { token: admin }), 201);

    const m3u = await call("POST", "/v1/admin/m3u-sources", {
      token: admin,
      body: { id: "prov", name: "Provider", url: `${origin.url}/list.m3u` },
    });
    ok(m3u, 201);
    ok(await call("GET", "/v1/admin/m3u-sources", { token: admin }), 200);
    ok(await call("POST", "/v1/admin/m3u-sources/prov/refresh", { token: admin }), 200);
    ok(await call("GET", "/v1/admin/m3u-sources/status", { token: admin }), 200);
    const got = await call("GET", "/v1/admin/m3u-sources/prov", { token: admin });
    ok(got, 200);
    const put = await call("PUT", "/v1/admin/m3u-sources/prov", {
      token: admin,
      ifMatch: got.body.source.revision,
      body: { name: "Provider 2" },
    });
    ok(put, 200);
    ok(await call("GET", "/v1/admin/channels", { token: admin }), 200);
    ok(
      await call("DELETE", "/v1/admin/m3u-sources/prov", {
        token: admin,
        ifMatch: put.body.source.revision,
      }),
      200,
    );
    ok(await call("GET", "/v1/admin/m3u-sources/prov", { token: admin }), 404);
  });

  it("the credential change answers as login does", async () => {
    ok(
      await call("PUT", "/v1/me/credentials", {
        token: admin,
        body: { current_password: "wrong-password", new_password: "another-password-2" },
      }),
      422,
    );
    const changed = await call("PUT", "/v1/me/credentials", {
      token: admin,
      body: { current_password: ADMIN_PASSWORD, new_password: "another-password-2" },
    });
    ok(changed, 200);
    admin = changed.body.token;
  });

  it("no answer broke its declaration, and every declared JSON answer was seen", () => {
    const unseen = rows
      .filter((r) => {
        const answer = r.success[2];
        return answer !== undefined && answer !== null && typeof answer !== "string";
      })
      .map((r) => `${r.method} ${r.path} ${r.success[0]}`)
      .filter((line) => !validated.has(line));
    assert.deepEqual({ failures, unseen }, { failures: [], unseen: [] });
  });

  it("the answer schemas are strict: a field a handler adds undeclared would fail", () => {
    const lenient: string[] = [];
    for (const [line, { row, body }] of samples) {
      const answer = row.success[2] as StandardSchema;
      const widened = Array.isArray(body)
        ? [...body, { ...body[0], undeclared: 1 }]
        : { ...(body as object), undeclared: 1 };
      if (answer["~standard"].validate(widened).issues === undefined) lenient.push(line);
    }
    assert.ok(samples.size > 60, `only ${samples.size} answers sampled`);
    assert.deepEqual(lenient, []);
  });
});
