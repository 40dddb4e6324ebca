import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import { assertError, assertTime, type FullGateway, keysOf, startFull } from "./full-fixture.js";

// With the extension fields of "Connection limits": max_connections, and active_cons in lists.
const KEY_FIELDS = [
  "active_cons",
  "created_at",
  "enabled",
  "expires_at",
  "id",
  "last_used_at",
  "max_connections",
  "name",
  "note",
  "revision",
  "revoked_at",
  "scope",
  "token_prefix",
  "xtream_username",
];

describe("full: playback keys and /p/{token}/", () => {
  let f: FullGateway;
  const url = (p: string) => `${f.base}${p}`;
  const createKey = async (body: Record<string, unknown>) => {
    const r = await requestJson(url("/v1/admin/access-tokens"), { token: f.admin, body });
    assert.equal(r.status, 201, r.text);
    return r.body;
  };
  before(async () => {
    // Open playback: /p/ must still validate the key.
    f = await startFull({ security: { play_require_auth: false } });
  });
  after(async () => {
    await f.gw.stop();
  });

  it("creates a v1 key shown once with its playlist URL", async () => {
    const k = await createKey({
      name: "tv",
      note: "living room",
      channel_ids: ["news"],
      expires_in_sec: 0,
    });
    assert.deepEqual(keysOf(k), [
      "created_at",
      "expires_at",
      "id",
      "max_connections",
      "name",
      "playlist_url",
      "scope",
      "token",
      "token_prefix",
      "warning",
    ]);
    assert.match(k.token, /^v1[0-9A-Za-z]{126}$/);
    assert.equal(k.token_prefix, k.token.slice(0, 10));
    assert.deepEqual(k.scope, { all: false, channel_ids: ["news"] });
    assert.equal(k.playlist_url, `${f.base}/p/${k.token}/playlist.m3u`);
    assertTime(k.created_at);
    assert.equal(k.expires_at, null);
    const list = await requestJson(url("/v1/admin/access-tokens"), { token: f.admin });
    assert.equal(list.status, 200);
    assert.deepEqual(keysOf(list.body), ["access_tokens"]);
    const row = list.body.access_tokens.find((x: any) => x.id === k.id);
    assert.deepEqual(keysOf(row), KEY_FIELDS);
    assert.equal(row.enabled, true);
    assert.equal(row.revoked_at, null);
    assert.ok(!list.text.includes(k.token));
  });

  it("validates key bodies", async () => {
    const bad = (body: unknown) =>
      requestJson(url("/v1/admin/access-tokens"), { token: f.admin, body });
    assertError(await bad({ channel_ids: [] }), 400, "invalid_request");
    assertError(await bad({ name: "x", channel_ids: ["nope"] }), 400, "invalid_request");
    assertError(await bad({ name: "x", expires_in_sec: 11 * 366 * 86400 }), 400, "invalid_request");
    assertError(await bad({ name: "x", colour: 1 }), 400, "invalid_request");
  });

  it("serves the key's enabled channels as M3U with /p/ play URLs, whatever headers say", async () => {
    const scoped = await createKey({ name: "scoped", channel_ids: ["news"] });
    const all = await createKey({ name: "all" });
    const res = await fetch(url(`/p/${scoped.token}/playlist.m3u`), {
      headers: { authorization: "Bearer garbage", cookie: "x=y" },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/vnd.apple.mpegurl");
    const text = await res.text();
    assert.equal(
      text,
      `#EXTM3U\n#EXTINF:-1 tvg-id="" tvg-name="News",News\n${f.base}/p/${scoped.token}/play/news/index.m3u8\n`,
    );
    const both = await (await fetch(url(`/p/${all.token}/playlist.m3u`))).text();
    assert.deepEqual(
      both.split("\n").filter((l) => l.startsWith("http")),
      [
        `${f.base}/p/${all.token}/play/news/index.m3u8`,
        `${f.base}/p/${all.token}/play/sport/index.m3u8`,
      ],
    );
  });

  it("answers 401 for unknown, malformed, revoked and expired keys, 403 out of scope", async () => {
    const unknown = `v1${"a".repeat(126)}`;
    assertError(await requestJson(url(`/p/${unknown}/playlist.m3u`)), 401, "unauthorized");
    assertError(await requestJson(url("/p/short/playlist.m3u")), 401, "unauthorized");
    const scoped = await createKey({ name: "scope-test", channel_ids: ["news"] });
    assertError(
      await requestJson(url(`/p/${scoped.token}/play/sport/index.m3u8`)),
      403,
      "forbidden",
    );
    const revoked = await createKey({ name: "to-revoke" });
    assertError(
      await requestJson(url(`/v1/admin/access-tokens/${revoked.id}/revoke`), {
        method: "POST",
        token: f.admin,
        headers: { "if-match": '"5"' },
      }),
      409,
      "conflict",
    );
    const rv = await requestJson(url(`/v1/admin/access-tokens/${revoked.id}/revoke`), {
      method: "POST",
      token: f.admin,
    });
    assert.equal(rv.status, 200);
    assert.deepEqual(rv.body, { ok: true });
    assertError(await requestJson(url(`/p/${revoked.token}/playlist.m3u`)), 401, "unauthorized");
    const expiring = await createKey({ name: "short-lived", expires_in_sec: 1 });
    assertTime(expiring.expires_at);
    await new Promise((r) => setTimeout(r, 1100));
    assertError(await requestJson(url(`/p/${expiring.token}/playlist.m3u`)), 401, "unauthorized");
    assertError(
      await requestJson(url("/v1/admin/access-tokens/pk_nope/revoke"), {
        method: "POST",
        token: f.admin,
      }),
      404,
      "not_found",
    );
  });

  it("records each use with the key cut to its prefix; lists, filters and clears the log", async () => {
    const k = await createKey({ name: "logged", channel_ids: ["news"] });
    await requestJson(url(`/p/${k.token}/playlist.m3u`));
    await requestJson(url(`/p/${k.token}/play/sport/index.m3u8`));
    const r = await requestJson(url(`/v1/admin/access-logs?token_id=${k.id}`), { token: f.admin });
    assert.equal(r.status, 200);
    assert.deepEqual(keysOf(r.body), ["access_logs"]);
    assert.equal(r.body.access_logs.length, 2);
    const [denied, ok] = r.body.access_logs;
    assert.deepEqual(keysOf(ok), [
      "channel_id",
      "created_at",
      "id",
      "path",
      "remote",
      "status",
      "token_id",
      "token_prefix",
    ]);
    assert.equal(ok.status, 200);
    assert.equal(ok.channel_id, null);
    assert.equal(ok.token_prefix, k.token.slice(0, 10));
    assert.equal(ok.path, `/p/${k.token.slice(0, 10)}…/playlist.m3u`);
    assert.equal(ok.remote, "127.0.0.1");
    assertTime(ok.created_at);
    assert.equal(denied.status, 403);
    assert.equal(denied.channel_id, "sport");
    assert.ok(!r.text.includes(k.token));
    const keys = await requestJson(url("/v1/admin/access-tokens"), { token: f.admin });
    assertTime(keys.body.access_tokens.find((x: any) => x.id === k.id).last_used_at);
    assertError(
      await requestJson(url("/v1/admin/access-logs?limit=0"), { token: f.admin }),
      400,
      "invalid_request",
    );
    assertError(
      await requestJson(url("/v1/admin/access-logs?limit=abc"), { token: f.admin }),
      400,
      "invalid_request",
    );
    const limited = await requestJson(url("/v1/admin/access-logs?limit=1"), { token: f.admin });
    assert.equal(limited.body.access_logs.length, 1);
  });

  it("turns 1,000 key requests into 1,000 access records", async () => {
    const k = await createKey({ name: "load" });
    const paths = Array.from({ length: 1000 }, () => url(`/p/${k.token}/playlist.m3u`));
    for (let i = 0; i < paths.length; i += 50) {
      const batch = await Promise.all(
        paths.slice(i, i + 50).map((p) => fetch(p).then((r) => r.text().then(() => r.status))),
      );
      assert.ok(batch.every((s) => s === 200));
    }
    const r = await requestJson(url(`/v1/admin/access-logs?token_id=${k.id}&limit=1000`), {
      token: f.admin,
    });
    assert.equal(r.body.access_logs.length, 1000);
    assert.ok(r.body.access_logs.every((a: any) => a.token_id === k.id && a.status === 200));
    assert.equal(new Set(r.body.access_logs.map((a: any) => a.id)).size, 1000);
  });

  it("deletes keys (If-Match optional, validated) and clears the log with a count", async () => {
    const k = await createKey({ name: "gone" });
    await requestJson(url(`/p/${k.token}/playlist.m3u`));
    assertError(
      await requestJson(url(`/v1/admin/access-tokens/${k.id}`), {
        method: "DELETE",
        token: f.admin,
        headers: { "if-match": '"9"' },
      }),
      409,
      "conflict",
    );
    const del = await requestJson(url(`/v1/admin/access-tokens/${k.id}`), {
      method: "DELETE",
      token: f.admin,
      headers: { "if-match": '"1"' },
    });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.body, { ok: true });
    assertError(await requestJson(url(`/p/${k.token}/playlist.m3u`)), 401, "unauthorized");
    const all = await requestJson(url("/v1/admin/access-logs?limit=1000"), { token: f.admin });
    const cleared = await requestJson(url("/v1/admin/access-logs"), {
      method: "DELETE",
      token: f.admin,
    });
    assert.equal(cleared.status, 200);
    assert.ok(cleared.body.deleted >= all.body.access_logs.length);
    assert.deepEqual(keysOf(cleared.body), ["deleted"]);
    const empty = await requestJson(url("/v1/admin/access-logs"), { token: f.admin });
    assert.deepEqual(empty.body, { access_logs: [] });
  });
});
