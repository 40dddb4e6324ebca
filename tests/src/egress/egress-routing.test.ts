import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertError, type FullGateway, startFull } from "../full/full-fixture.js";
import { fixtureBytes, hlsFixtures } from "../harness/hls-fixtures.js";
import { requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { get, playlistUrls } from "../playback/playback-setup.js";
import { type LoopbackProxy, startHttpProxy, startSocks5Proxy } from "./loopback-proxies.js";

const SECRET = "pr0xy-s3cret";
const CREDS = { user: "gw", pass: SECRET };

describe("egress routing through proxy profiles and rules", () => {
  let root: string;
  let origin: Origin;
  let full: FullGateway;
  const proxies = {} as Record<
    "httpOpen" | "httpAuth" | "socksAuth" | "socksOpen" | "socksReject",
    LoopbackProxy
  >;
  let revision = 0;

  const api = (path: string, init: Parameters<typeof requestJson>[1] = {}) =>
    requestJson(`${full.base}${path}`, { token: full.admin, ...init });
  /** Writes with the document's current revision as If-Match and keeps the next one. */
  const write = async (method: string, path: string, body?: unknown) => {
    const r = await api(path, { method, body, headers: { "if-match": `"${revision}"` } });
    if (r.status < 300) revision = (r.body.egress ?? r.body).revision;
    return r;
  };
  const channel = (id: string, egress?: unknown) => ({
    id,
    title: id,
    ingress: "hls",
    source_url: `${origin.url}/vod/v0.m3u8`,
    ...(egress === undefined ? {} : { egress }),
  });
  /** Plays the channel's playlist and first segment; asserts the origin's bytes arrived. */
  const play = async (id: string) => {
    const pl = await get(`${full.base}/v1/play/${id}/index.m3u8`);
    assert.equal(pl.status, 200, pl.text);
    const seg = await get(playlistUrls(pl.text)[0]!);
    assert.equal(seg.status, 200);
    assert.ok(seg.bytes.equals(fixtureBytes(root, "vod/v0_0.ts")));
  };
  const target = () => `127.0.0.1:${origin.port}`;
  const segmentBytes = () => fixtureBytes(root, "vod/v0_0.ts").length;

  before(async () => {
    root = await hlsFixtures();
    origin = await startOrigin({ root });
    proxies.httpOpen = await startHttpProxy();
    proxies.httpAuth = await startHttpProxy(CREDS);
    proxies.socksAuth = await startSocks5Proxy({ credentials: CREDS });
    proxies.socksOpen = await startSocks5Proxy();
    proxies.socksReject = await startSocks5Proxy({ rejectAll: true });
    full = await startFull({
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      egress: {
        // Seeds the stored document on the first start.
        proxies: [
          {
            id: "http-auth",
            name: "HTTP with auth",
            url: `http://${CREDS.user}:${SECRET}@127.0.0.1:${proxies.httpAuth.port}`,
          },
        ],
      },
    });
    revision = (await api("/v1/admin/egress")).body.revision;
  });
  after(async () => {
    await full?.gw.stop();
    await origin?.close();
    await Promise.all(Object.values(proxies).map((p) => p.close()));
  });

  it("seeds the document from the config file and never shows credentials", async () => {
    const r = await api("/v1/admin/egress");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("etag"), `"${r.body.revision}"`);
    assert.deepEqual(Object.keys(r.body).sort(), [
      "default",
      "docker_proxy_host",
      "playlist_policy",
      "proxies",
      "revision",
      "rules",
      "source",
    ]);
    assert.equal(r.body.source, "config");
    assert.equal(r.body.default, "direct");
    assert.equal(r.body.playlist_policy, "rewrite");
    assert.deepEqual(r.body.proxies, [
      {
        id: "http-auth",
        name: "HTTP with auth",
        url: `http://127.0.0.1:${proxies.httpAuth.port}`,
        disabled: false,
        credential_configured: true,
        revision: 1,
      },
    ]);
    assert.ok(!r.text.includes(SECRET));
  });

  it("requires If-Match on every egress write (409 when missing or stale)", async () => {
    const doc = (await api("/v1/admin/egress")).body;
    assertError(await api("/v1/admin/egress", { method: "PUT", body: doc }), 409, "conflict");
    assertError(
      await api("/v1/admin/egress", {
        method: "PUT",
        body: doc,
        headers: { "if-match": `"${revision + 5}"` },
      }),
      409,
      "conflict",
    );
    const profile = { id: "x", url: "http://127.0.0.1:1" };
    assertError(await api("/v1/admin/egress/proxies", { body: profile }), 409, "conflict");
    assertError(
      await api("/v1/admin/egress/rules", {
        body: { kind: "host_exact", pattern: "a", proxy: "direct" },
      }),
      409,
      "conflict",
    );
    assertError(
      await api("/v1/admin/egress/proxies/http-auth", { method: "DELETE" }),
      409,
      "conflict",
    );
  });

  it("adds profiles of every kind one by one, each write validating the whole document", async () => {
    for (const [id, url] of [
      ["http-open", `http://127.0.0.1:${proxies.httpOpen.port}`],
      ["socks-auth", `socks5://${CREDS.user}:${SECRET}@127.0.0.1:${proxies.socksAuth.port}`],
      ["socks-open", `socks5h://127.0.0.1:${proxies.socksOpen.port}`],
      ["socks-reject", `socks5://who:wrong@127.0.0.1:${proxies.socksReject.port}`],
    ] as const) {
      const r = await write("POST", "/v1/admin/egress/proxies", { id, url });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.proxy.id, id);
      assert.equal(r.body.proxy.url, url.replace(/\/\/[^@]*@/, "//"));
      assert.equal(r.body.proxy.credential_configured, url.includes("@"));
      assert.ok(!r.text.includes(SECRET) && !r.text.includes("wrong"));
    }
    assertError(
      await write("POST", "/v1/admin/egress/proxies", {
        id: "http-open",
        url: "http://127.0.0.1:2",
      }),
      409,
      "conflict",
    );
    for (const bad of [
      { id: "direct", url: "http://127.0.0.1:1" },
      { id: "DIRECT", url: "http://127.0.0.1:1" },
      { id: "ftp", url: "ftp://127.0.0.1:21" },
      { id: "path", url: "http://127.0.0.1:1/x" },
      { id: "bad id!", url: "http://127.0.0.1:1" },
    ])
      assertError(await write("POST", "/v1/admin/egress/proxies", bad), 400, "invalid_request");
  });

  it("carries playlists and segments through each profile kind a channel is bound to", async () => {
    for (const [id, profile, proxy] of [
      ["via-http", "http-open", proxies.httpOpen],
      ["via-http-auth", "http-auth", proxies.httpAuth],
      ["via-socks", "socks-auth", proxies.socksAuth],
      ["via-socks5h", "socks-open", proxies.socksOpen],
    ] as const) {
      const created = await api("/v1/admin/channels", {
        body: channel(id, { mode: "profile", profile_id: profile }),
      });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body, { ok: true, id, egress_profile_id: profile });
      const before = proxy.carried.length;
      const bytes = proxy.relayed;
      const hitsBefore = origin.count("/vod/");
      await play(id);
      // The playlist and the segment both came back through this proxy from the origin (one
      // SOCKS or CONNECT tunnel may carry both: bytes, not connections, are counted).
      const carried = proxy.carried.slice(before);
      assert.ok(carried.length >= 1, `${profile} carried nothing`);
      assert.ok(
        proxy.relayed - bytes >= segmentBytes(),
        `${profile}: ${proxy.relayed - bytes} bytes`,
      );
      assert.ok(
        carried.every((h) => h === target()),
        carried.join(","),
      );
      assert.ok(origin.count("/vod/") >= hitsBefore + 2);
      const detail = await api(`/v1/admin/channels/${id}`);
      assert.deepEqual(detail.body.egress_binding, { mode: "profile", profile_id: profile });
      assert.equal(typeof detail.body.effective_user_agent, "string");
      assert.ok(detail.body.effective_user_agent.length > 0);
    }
    assert.equal(proxies.httpAuth.authFailures, 0);
    assert.equal(proxies.socksAuth.authFailures, 0);
  });

  it("routes auto channels by the rules in order, then by the default", async () => {
    assert.equal((await api("/v1/admin/channels", { body: channel("ruled") })).status, 201);
    const counts = () =>
      Object.fromEntries(Object.entries(proxies).map(([k, p]) => [k, p.relayed])) as Record<
        keyof typeof proxies,
        number
      >;
    // No rule, default direct: no proxy carries anything.
    let c0 = counts();
    await play("ruled");
    assert.deepEqual(counts(), c0);

    const r1 = await write("POST", "/v1/admin/egress/rules", {
      id: "by-channel",
      kind: "channel_id",
      pattern: "ruled",
      proxy: "socks-open",
    });
    assert.equal(r1.status, 201, r1.text);
    c0 = counts();
    await play("ruled");
    assert.ok(proxies.socksOpen.relayed >= c0.socksOpen + segmentBytes());
    assert.equal(proxies.httpOpen.relayed, c0.httpOpen);

    // A rule replaced by id: now the URL decides, through the HTTP proxy.
    const r2 = await write("PUT", "/v1/admin/egress/rules/by-channel", {
      kind: "url_regex",
      pattern: "/vod/v0(_0\\.ts|\\.m3u8)$",
      proxy: "http-open",
    });
    assert.equal(r2.status, 200, r2.text);
    c0 = counts();
    await play("ruled");
    assert.ok(proxies.httpOpen.relayed >= c0.httpOpen + segmentBytes());
    assert.equal(proxies.socksOpen.relayed, c0.socksOpen);

    // The default applies when no rule matches; a `direct` binding skips rules and default.
    await write("DELETE", "/v1/admin/egress/rules/by-channel");
    const doc = (await api("/v1/admin/egress")).body;
    const put = await write("PUT", "/v1/admin/egress", { ...doc, default: "socks-auth" });
    assert.equal(put.status, 200, put.text);
    c0 = counts();
    await play("ruled");
    assert.ok(proxies.socksAuth.relayed >= c0.socksAuth + segmentBytes());
    const direct = await api("/v1/admin/channels", {
      body: channel("direct-one", { mode: "direct" }),
    });
    assert.equal(direct.status, 201, direct.text);
    c0 = counts();
    await play("direct-one");
    assert.deepEqual(counts(), c0);
  });

  it("keeps stored credentials when a client writes back what it read", async () => {
    const doc = (await api("/v1/admin/egress")).body;
    assert.ok(!JSON.stringify(doc).includes(SECRET));
    const put = await write("PUT", "/v1/admin/egress", doc);
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.source, "api");
    const failures = proxies.httpAuth.authFailures;
    await play("via-http-auth");
    await play("via-socks");
    assert.equal(proxies.httpAuth.authFailures, failures);
    assert.equal(proxies.socksAuth.authFailures, 0);
    // A new host drops them: they belonged to the old one.
    const moved = await write("PUT", "/v1/admin/egress/proxies/socks-reject", {
      id: "socks-reject",
      url: `socks5://localhost:${proxies.socksReject.port}`,
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.proxy.credential_configured, false);
    assert.equal(moved.body.proxy.revision, 2);
    const back = await write("PUT", "/v1/admin/egress/proxies/socks-reject", {
      id: "socks-reject",
      url: `socks5://who:wrong@127.0.0.1:${proxies.socksReject.port}`,
    });
    assert.equal(back.status, 200, back.text);
  });

  it("answers 502 without secrets when the proxy refuses the credentials", async () => {
    assert.equal(
      (
        await api("/v1/admin/channels", {
          body: channel("rejected", { mode: "profile", profile_id: "socks-reject" }),
        })
      ).status,
      201,
    );
    const r = await get(`${full.base}/v1/play/rejected/index.m3u8`);
    assert.equal(r.status, 502, r.text);
    assert.equal(r.json.error.code, "upstream_error");
    assert.ok(proxies.socksReject.authFailures > 0);
    assert.ok(!r.text.includes("wrong") && !r.text.includes(SECRET));
    assert.ok(!full.gw.stdout().includes(SECRET) && !full.gw.stderr().includes(SECRET));
    assert.ok(!full.gw.stdout().includes("wrong") && !full.gw.stderr().includes("wrong"));
  });

  it("validates rules: RE2 syntax, bounded length, existing enabled profiles", async () => {
    for (const bad of [
      { kind: "url_regex", pattern: "(a)\\1", proxy: "direct" },
      { kind: "host_regex", pattern: "(?=x)y", proxy: "direct" },
      { kind: "url_regex", pattern: "x".repeat(513), proxy: "direct" },
      { kind: "host_regex", pattern: "[", proxy: "direct" },
      { kind: "host_suffix", pattern: "", proxy: "direct" },
      { kind: "host_exact", pattern: "a.test", proxy: "missing" },
      { kind: "nope", pattern: "a", proxy: "direct" },
    ])
      assertError(await write("POST", "/v1/admin/egress/rules", bad), 400, "invalid_request");
    // A disabled profile cannot be a rule's target, nor the default, nor become disabled under one.
    const dis = await write("PUT", "/v1/admin/egress/proxies/socks-reject", {
      id: "socks-reject",
      url: `socks5://127.0.0.1:${proxies.socksReject.port}`,
      disabled: true,
    });
    assert.equal(dis.status, 200, dis.text);
    assertError(
      await write("POST", "/v1/admin/egress/rules", {
        kind: "host_exact",
        pattern: "a.test",
        proxy: "socks-reject",
      }),
      400,
      "invalid_request",
    );
    const rule = await write("POST", "/v1/admin/egress/rules", {
      id: "to-http",
      kind: "host_suffix",
      pattern: "example.test",
      proxy: "http-open",
    });
    assert.equal(rule.status, 201, rule.text);
    assertError(
      await write("PUT", "/v1/admin/egress/proxies/http-open", {
        id: "http-open",
        url: `http://127.0.0.1:${proxies.httpOpen.port}`,
        disabled: true,
      }),
      400,
      "invalid_request",
    );
    // A nested quantifier is linear on RE2: a long non-matching URL does not stall playback.
    const nested = await write("POST", "/v1/admin/egress/rules", {
      id: "nested",
      kind: "url_regex",
      pattern: "^http://(a+)+$",
      proxy: "http-open",
    });
    assert.equal(nested.status, 201, nested.text);
    const t0 = performance.now();
    await play("ruled");
    assert.ok(performance.now() - t0 < 5_000);
    await write("DELETE", "/v1/admin/egress/rules/nested");
  });

  it("deletes a profile with its rules, resets the default, and keeps one channels are bound to", async () => {
    assertError(await write("DELETE", "/v1/admin/egress/proxies/http-open"), 409, "conflict");
    // socks-auth is the default (set above) and unbound once via-socks moves to auto.
    const ch = (await api("/v1/admin/channels/via-socks")).body.channel;
    const moved = await api("/v1/admin/channels/via-socks", {
      method: "PUT",
      body: {
        id: ch.id,
        title: ch.title,
        ingress: "hls",
        source_url: ch.source_url,
        egress: { mode: "auto" },
      },
    });
    assert.equal(moved.status, 200, moved.text);
    await write("POST", "/v1/admin/egress/rules", {
      id: "to-socks",
      kind: "host_exact",
      pattern: "b.test",
      proxy: "socks-auth",
    });
    const del = await write("DELETE", "/v1/admin/egress/proxies/socks-auth");
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.egress.default, "direct");
    assert.ok(!del.body.egress.rules.some((r: { id: string }) => r.id === "to-socks"));
    assert.ok(del.body.egress.rules.some((r: { id: string }) => r.id === "to-http"));
    assertError(await write("DELETE", "/v1/admin/egress/proxies/socks-auth"), 404, "not_found");
  });

  it("creates a profile inline with new_proxy (exclusive with profile_id)", async () => {
    const url = `socks5://${CREDS.user}:${SECRET}@127.0.0.1:${proxies.socksAuth.port}`;
    assertError(
      await api("/v1/admin/channels", {
        body: channel("inline", { mode: "profile", profile_id: "http-open", new_proxy: { url } }),
      }),
      400,
      "invalid_request",
    );
    assertError(
      await api("/v1/admin/channels", {
        body: channel("inline", { mode: "profile", new_proxy: { url: "gopher://x:1" } }),
      }),
      400,
      "invalid_request",
    );
    const r = await api("/v1/admin/channels", {
      body: channel("inline", { mode: "profile", new_proxy: { url } }),
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body, { ok: true, id: "inline", egress_profile_id: "ch-inline" });
    const doc = await api("/v1/admin/egress");
    revision = doc.body.revision;
    const p = doc.body.proxies.find((x: { id: string }) => x.id === "ch-inline");
    assert.equal(p.credential_configured, true);
    assert.ok(!doc.text.includes(SECRET));
    const before = proxies.socksAuth.relayed;
    await play("inline");
    assert.ok(proxies.socksAuth.relayed >= before + segmentBytes());
  });

  it("reports the route a source probe took as proxy_id", async () => {
    const base = { title: "p", ingress: "hls", source_url: `${origin.url}/vod/v0.m3u8` };
    const direct = await api("/v1/admin/source-probes", { body: base });
    assert.equal(direct.status, 200, direct.text);
    assert.equal(direct.body.ok, true);
    assert.equal(direct.body.proxy_id, "direct");
    const before = proxies.httpOpen.carried.length;
    const via = await api("/v1/admin/source-probes", {
      body: { ...base, egress: { mode: "profile", profile_id: "http-open" } },
    });
    assert.equal(via.status, 200, via.text);
    assert.equal(via.body.ok, true);
    assert.equal(via.body.proxy_id, "http-open");
    assert.equal(proxies.httpOpen.carried.length, before + 1);
    const stored = await api("/v1/admin/channels/via-http/probe", { method: "POST" });
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.ok, true);
  });
});
