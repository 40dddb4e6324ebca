import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
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

// Loopback only. The list origin listens on 127.0.0.1 (in security.allowed_hosts); the one
// on 127.0.0.2 is not, so the egress guard refuses it before any connection is opened.

const SOURCE_FIELDS = [
  "enabled",
  "group_filter",
  "id",
  "name",
  "refresh_interval_min",
  "remove_missing",
  "revision",
  "updated_at",
  "upstream",
  "url",
];
const STATUS_FIELDS = [
  "created",
  "disabled",
  "error",
  "last_attempt",
  "last_success",
  "skipped",
  "source_id",
  "updated",
];

/** A provider: its list changes between syncs; ETag validators; failure modes on demand. */
interface ListOrigin {
  readonly url: string;
  list: string;
  mode: "ok" | "500" | "garbage";
  /** `If-None-Match` of each request for the list. */
  readonly conditional: (string | undefined)[];
  close(): Promise<void>;
}

async function startListOrigin(host: string): Promise<ListOrigin> {
  const state = {
    list: "",
    mode: "ok" as ListOrigin["mode"],
    conditional: [] as (string | undefined)[],
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== "/provider/list.m3u") {
      res.writeHead(404).end();
      return;
    }
    const inm = req.headers["if-none-match"];
    state.conditional.push(typeof inm === "string" ? inm : undefined);
    if (state.mode === "500") {
      res.writeHead(500, { "content-type": "text/plain" }).end("provider down");
      return;
    }
    const body = state.mode === "garbage" ? "<html><body>maintenance</body></html>\n" : state.list;
    const tag = `"${Buffer.from(body).toString("base64url").slice(-16)}-${body.length}"`;
    if (inm === tag) {
      res.writeHead(304, { etag: tag }).end();
      return;
    }
    res.writeHead(200, { "content-type": "audio/x-mpegurl", etag: tag }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/provider/list.m3u`,
    get list() {
      return state.list;
    },
    set list(v: string) {
      state.list = v;
    },
    get mode() {
      return state.mode;
    },
    set mode(v: ListOrigin["mode"]) {
      state.mode = v;
    },
    conditional: state.conditional,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const entry = (attrs: string, title: string, url: string) =>
  `#EXTINF:-1 ${attrs},${title}\n${url}\n`;
const media = (path: string) => `http://127.0.0.1:9/${path}`;

const FIRST = `#EXTM3U\n${entry('tvg-id="news.one" group-title="News"', "News One", media("news/index.m3u8?token=t1"))}${entry('tvg-id="sport.one" group-title="Sport"', "Sport One", media("sport/index.m3u8"))}${entry('group-title="Kids"', "Kids Zone", media("kids/index.m3u8"))}`;
/** The provider's next day: News One's URL rotated, Sport One renamed, Kids Zone gone, Movies new. */
const SECOND = `#EXTM3U\n${entry('tvg-id="news.one" group-title="News"', "News One", media("news/index.m3u8?token=t2"))}${entry('tvg-id="sport.one" group-title="Sport"', "Sport One HD", media("sport/index.m3u8"))}${entry('tvg-id="movies" group-title="Movies"', "Movies", media("movies/index.m3u8"))}`;

describe("full: M3U provider sources (extensions.m3u_sources)", () => {
  let origin: ListOrigin;
  let refused: ListOrigin;
  let f: FullGateway;
  const url = (p: string) => `${f.base}${p}`;
  const get = (p: string, token = f.admin) => requestJson(url(p), { token });
  const post = (p: string, body?: unknown, token = f.admin) =>
    requestJson(url(p), { method: "POST", token, ...(body === undefined ? {} : { body }) });
  const put = (p: string, revision: number | undefined, body: unknown, token = f.admin) =>
    requestJson(url(p), {
      method: "PUT",
      token,
      body,
      ...(revision === undefined ? {} : { headers: { "if-match": `"${revision}"` } }),
    });
  const refresh = (id: string, token = f.admin) =>
    post(`/v1/admin/m3u-sources/${id}/refresh`, undefined, token);
  /** The source's channels, by id, as the admin list shows them. */
  const owned = async (source: string) => {
    const r = await get("/v1/admin/channels");
    assert.equal(r.status, 200, r.text);
    return Object.fromEntries(
      r.body.channels.filter((c: any) => c.m3u_source === source).map((c: any) => [c.id, c]),
    );
  };
  const channelsText = async () => (await get("/v1/admin/channels")).text;

  before(async () => {
    origin = await startListOrigin("127.0.0.1");
    refused = await startListOrigin("127.0.0.2");
    refused.list = FIRST;
    f = await startFull({
      security: { allowed_hosts: ["127.0.0.1"] },
      extensions: { m3u_sources: true },
      upstreams: [
        { id: "origin", base_url: "http://127.0.0.1:9/" },
        { id: "lists", base_url: `${new URL(origin.url).origin}/provider/` },
      ],
    });
  });
  after(async () => {
    await f.gw.stop();
    await origin.close();
    await refused.close();
  });

  it("creates, reads and lists a source in the resource's shape", async () => {
    origin.list = FIRST;
    // `enabled: false`: no scheduled sync runs between this suite's own refreshes.
    const c = await post("/v1/admin/m3u-sources", {
      id: "prov",
      name: "Provider",
      url: origin.url,
      enabled: false,
    });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.headers.get("etag"), '"1"');
    assert.deepEqual(keysOf(c.body), ["source"]);
    assert.deepEqual(keysOf(c.body.source), SOURCE_FIELDS);
    assert.deepEqual(
      { ...c.body.source, updated_at: "t" },
      {
        id: "prov",
        name: "Provider",
        url: origin.url,
        enabled: false,
        refresh_interval_min: 60,
        upstream: "",
        group_filter: [],
        remove_missing: false,
        revision: 1,
        updated_at: "t",
      },
    );
    assertTime(c.body.source.updated_at);
    const one = await get("/v1/admin/m3u-sources/prov");
    assert.deepEqual(one.body, c.body);
    const list = await get("/v1/admin/m3u-sources");
    assert.deepEqual(list.body, { sources: [c.body.source] });
    const st = await get("/v1/admin/m3u-sources/status");
    assert.deepEqual(st.body, {
      statuses: [
        {
          source_id: "prov",
          last_attempt: null,
          last_success: null,
          error: null,
          created: 0,
          updated: 0,
          disabled: 0,
          skipped: 0,
        },
      ],
    });
  });

  it("refuses bad bodies, duplicates and unknown upstreams with the error shape", async () => {
    const bad = (body: unknown) => post("/v1/admin/m3u-sources", body);
    assertError(await bad({ id: "x", url: "ftp://127.0.0.1/list" }), 400, "invalid_request");
    assertError(await bad({ id: "x", url: "relative/list.m3u" }), 400, "invalid_request");
    assertError(await bad({ id: "x", url: origin.url, extra: 1 }), 400, "invalid_request");
    assertError(await bad({ id: "bad id", url: origin.url }), 400, "invalid_request");
    assertError(
      await bad({ id: "x", url: origin.url, refresh_interval_min: 1 }),
      400,
      "invalid_request",
    );
    assertError(await bad({ id: "x", url: "list.m3u", upstream: "nope" }), 400, "invalid_request");
    assertError(await bad({ id: "prov", url: origin.url }), 409, "conflict");
    assertError(await get("/v1/admin/m3u-sources/nope"), 404, "not_found");
    assertError(await refresh("nope"), 404, "not_found");
  });

  it("a first sync creates the source's channels, owned by it", async () => {
    const r = await refresh("prov");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(keysOf(r.body), ["ok", "status"]);
    assert.equal(r.body.ok, true);
    assert.deepEqual(keysOf(r.body.status), STATUS_FIELDS);
    assert.deepEqual(
      { ...r.body.status, last_attempt: "t", last_success: "t" },
      {
        source_id: "prov",
        last_attempt: "t",
        last_success: "t",
        error: null,
        created: 3,
        updated: 0,
        disabled: 0,
        skipped: 0,
      },
    );
    assertTime(r.body.status.last_attempt);
    assertTime(r.body.status.last_success);
    const chans = await owned("prov");
    assert.deepEqual(Object.keys(chans).sort(), ["Kids-Zone", "news.one", "sport.one"]);
    assert.equal(chans["news.one"].title, "News One");
    assert.equal(chans["news.one"].group, "News");
    assert.equal(chans["news.one"].source_url, media("news/index.m3u8?token=t1"));
    assert.equal(chans["sport.one"].epg_id, "sport.one");
    assert.equal(chans["Kids-Zone"].disabled, false);
    // A channel no source owns carries no `m3u_source` (the spec's shape is unchanged).
    const news = await get("/v1/admin/channels/news");
    assert.equal(news.body.channel.m3u_source, undefined);
  });

  it("a changed list syncs exactly: added, renamed, URL rotated, removed; the operator's title stays", async () => {
    // The operator renames News One (through the channel's own PUT, with what GET returned).
    const d = await get("/v1/admin/channels/news.one");
    assert.equal(d.body.channel.m3u_source, "prov");
    const { play_url: _p, revision: _r, updated_at: _u, ...write } = d.body.channel;
    const renamed = await put("/v1/admin/channels/news.one", d.body.channel.revision, {
      ...write,
      title: "My News",
    });
    assert.equal(renamed.status, 200, renamed.text);

    origin.list = SECOND;
    const r = await refresh("prov");
    assert.equal(r.body.ok, true, r.text);
    assert.deepEqual(
      {
        created: r.body.status.created,
        updated: r.body.status.updated,
        disabled: r.body.status.disabled,
        skipped: r.body.status.skipped,
      },
      { created: 1, updated: 2, disabled: 1, skipped: 0 },
    );
    const chans = await owned("prov");
    assert.deepEqual(Object.keys(chans).sort(), ["Kids-Zone", "movies", "news.one", "sport.one"]);
    // The rotated URL is taken; the operator's title is kept over the source's.
    assert.equal(chans["news.one"].source_url, media("news/index.m3u8?token=t2"));
    assert.equal(chans["news.one"].title, "My News");
    assert.equal(chans["sport.one"].title, "Sport One HD");
    assert.equal(chans["Kids-Zone"].disabled, true);
    assert.equal(chans.movies.title, "Movies");
    assert.equal(chans.movies.group, "Movies");
    assert.equal(chans.movies.disabled, false);

    // The next sync asks conditionally; the origin's 304 changes nothing.
    const before = await channelsText();
    const again = await refresh("prov");
    assert.equal(again.body.ok, true, again.text);
    assert.match(origin.conditional.at(-1) ?? "", /^".+"$/);
    assert.deepEqual(
      [again.body.status.created, again.body.status.updated, again.body.status.disabled],
      [0, 0, 0],
    );
    assert.equal(await channelsText(), before);
  });

  it("a failed sync (500, garbage, an address the guard refuses) changes nothing and reports its error", async () => {
    const before = await channelsText();
    const success = (await get("/v1/admin/m3u-sources/status")).body.statuses[0].last_success;
    origin.list = FIRST; // would re-add Kids Zone and rename back if it were applied
    const check = async (error: RegExp) => {
      const r = await refresh("prov");
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.ok, false, r.text);
      assert.match(r.body.status.error, error);
      assert.equal(r.body.status.last_success, success);
      assertTime(r.body.status.last_attempt);
      assert.equal(await channelsText(), before);
      const st = await get("/v1/admin/m3u-sources/status");
      assert.equal(st.body.statuses[0].error, r.body.status.error);
    };
    origin.mode = "500";
    await check(/^source answered HTTP 500$/);
    origin.mode = "garbage";
    await check(/^not an M3U playlist/);
    origin.mode = "ok";

    const src = await get("/v1/admin/m3u-sources/prov");
    const moved = await put("/v1/admin/m3u-sources/prov", src.body.source.revision, {
      url: refused.url,
    });
    assert.equal(moved.status, 200, moved.text);
    const hitsBefore = refused.conditional.length;
    await check(/^fetch failed: /);
    assert.equal(refused.conditional.length, hitsBefore, "the guard opened no connection");
    const back = await put("/v1/admin/m3u-sources/prov", moved.body.source.revision, {
      url: origin.url,
    });
    assert.equal(back.status, 200, back.text);
    // No secret of the list's address in the answers.
    assert.doesNotMatch(JSON.stringify((await get("/v1/admin/m3u-sources/status")).body), /token=/);
  });

  it("group_filter and remove_missing: entries outside the groups vanish and are deleted", async () => {
    origin.list = SECOND;
    const src = await get("/v1/admin/m3u-sources/prov");
    const r = await put("/v1/admin/m3u-sources/prov", src.body.source.revision, {
      group_filter: ["News", "Sport"],
      remove_missing: true,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.source.group_filter, ["News", "Sport"]);
    const s = await refresh("prov");
    assert.equal(s.body.ok, true, s.text);
    // Movies (outside the filter) is skipped; it and Kids Zone are deleted.
    assert.equal(s.body.status.skipped, 3);
    assert.equal(s.body.status.disabled, 2);
    const chans = await owned("prov");
    assert.deepEqual(Object.keys(chans).sort(), ["news.one", "sport.one"]);
    assert.equal(chans["news.one"].title, "My News");
  });

  it("If-Match is required on PUT and DELETE; scopes as for guide sources", async () => {
    const src = await get("/v1/admin/m3u-sources/prov");
    const rev = src.body.source.revision;
    assert.equal(src.headers.get("etag"), `"${rev}"`);
    const noMatch = await put("/v1/admin/m3u-sources/prov", undefined, { name: "x" });
    assertError(noMatch, 428, "conflict");
    assertError(await put("/v1/admin/m3u-sources/prov", rev + 5, { name: "x" }), 409, "conflict");
    assertError(
      await put("/v1/admin/m3u-sources/prov", rev, { id: "other", name: "x" }),
      400,
      "invalid_request",
    );
    const reader = await createApiToken(f.base, f.admin, ["read"]);
    const writer = await createApiToken(f.base, f.admin, ["write"]);
    const refresher = await createApiToken(f.base, f.admin, ["refresh"]);
    assert.equal((await get("/v1/admin/m3u-sources", reader.token)).status, 200);
    assert.equal((await get("/v1/admin/m3u-sources/status", reader.token)).status, 200);
    assertError(await get("/v1/admin/m3u-sources", writer.token), 403, "missing_scope");
    assertError(
      await post("/v1/admin/m3u-sources", { id: "y", url: origin.url }, reader.token),
      403,
      "missing_scope",
    );
    assertError(await refresh("prov", writer.token), 403, "missing_scope");
    assert.equal((await refresh("prov", refresher.token)).status, 200);
    const del = (revision: number | undefined, token = f.admin) =>
      requestJson(url("/v1/admin/m3u-sources/prov"), {
        method: "DELETE",
        token,
        ...(revision === undefined ? {} : { headers: { "if-match": `"${revision}"` } }),
      });
    assertError(await del(rev, writer.token), 403, "missing_scope");
    assertError(await del(undefined), 428, "conflict");
    const gone = await del(rev);
    assert.equal(gone.status, 200, gone.text);
    assert.deepEqual(gone.body, { ok: true });
    assertError(await get("/v1/admin/m3u-sources/prov"), 404, "not_found");
    // The channels stay, no longer owned by a source.
    const list = await get("/v1/admin/channels");
    const ids = list.body.channels.map((c: any) => c.id);
    assert.ok(ids.includes("news.one") && ids.includes("sport.one"));
    assert.ok(list.body.channels.every((c: any) => c.m3u_source === undefined));
    assert.deepEqual((await get("/v1/admin/m3u-sources/status")).body, { statuses: [] });
  });

  it("a URL given as a path under a config upstream is fetched from the upstream's base URL", async () => {
    origin.list = SECOND;
    const c = await post("/v1/admin/m3u-sources", {
      id: "via-upstream",
      url: "list.m3u",
      upstream: "lists",
      enabled: false,
    });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.body.source.upstream, "lists");
    assert.equal(c.body.source.url, "list.m3u");
    const r = await refresh("via-upstream");
    assert.equal(r.body.ok, true, r.text);
    assert.equal(r.body.status.created, 3);
    assert.equal(Object.keys(await owned("via-upstream")).length, 3);
  });
});

describe("full: M3U provider sources switched off", () => {
  let f: FullGateway;
  before(async () => {
    f = await startFull();
  });
  after(async () => {
    await f.gw.stop();
  });

  it("answers 404 on every route of the extension", async () => {
    for (const [method, path] of [
      ["GET", "/v1/admin/m3u-sources"],
      ["POST", "/v1/admin/m3u-sources"],
      ["GET", "/v1/admin/m3u-sources/status"],
      ["GET", "/v1/admin/m3u-sources/prov"],
      ["POST", "/v1/admin/m3u-sources/prov/refresh"],
    ] as const) {
      const r = await requestJson(`${f.base}${path}`, {
        method,
        token: f.admin,
        ...(method === "POST" ? { body: {} } : {}),
      });
      assertError(r, 404, "not_found");
    }
  });
});
