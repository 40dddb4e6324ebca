import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { gunzipSync, gzip, gzipSync } from "node:zlib";
import { assertError, type FullGateway, startFull } from "../full/full-fixture.js";
import { startGateway } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { authSection } from "../harness/users.js";
import { assertDtdValid, hlsChannel as ch } from "./guide-checks.js";
import { type GuideOrigin, startGuideOrigin } from "./guide-origin.js";
import { alphaGuide, BETA_GUIDE, BILLION_LAUGHS, EXTERNAL_ENTITY } from "./xmltv-fixtures.js";

/** The guide's channel variants: the table matching must resolve. */
const CHANNELS = [
  ch("bbc", "BBC ONE"),
  ch("erste", "Das Erste FHD"),
  ch("tq", "Tele Quebec"),
  ch("cnn", "UK: CNN International HD"),
  ch("f1", "SKY SPORTS F1 (UK)"),
  ch("local", "Local Access"),
  ch("mine", "My Channel", { epg_id: "daserste.de" }),
  ch("off", "BBC One", { disabled: true }),
];

/** `<programme ...>` lines of one channel as `start stop title`. */
function programmesOf(xml: string, channel: string): string[] {
  const re = new RegExp(
    `<programme start="([^"]+)"(?: stop="([^"]+)")? channel="${channel}"><title[^>]*>([^<]*)</title>`,
    "g",
  );
  return [...xml.matchAll(re)].map((m) => `${m[1]} ${m[2] ?? "-"} ${m[3]}`);
}

describe("guide: sources, refresh, matching and epg.xml", () => {
  let origin: GuideOrigin;
  let f: FullGateway;
  const url = (p: string) => `${f.base}${p}`;
  const admin = (p: string, init: Parameters<typeof requestJson>[1] = {}) =>
    requestJson(url(p), { token: f.admin, ...init });
  const refresh = () => admin("/v1/admin/epg/refresh", { method: "POST" });
  const epg = async () => {
    const r = await fetch(url("/v1/epg.xml"));
    return { status: r.status, headers: r.headers, text: await r.text() };
  };

  before(async () => {
    origin = await startGuideOrigin();
    origin.routes.set("/alpha.xml", {
      body: alphaGuide(origin.url),
      etag: '"alpha-1"',
      headers: { "content-type": "text/xml" },
    });
    // A gzipped file sent as-is: recognised by its magic bytes, not by headers.
    origin.routes.set("/beta.xml.gz", {
      body: gzipSync(BETA_GUIDE),
      headers: { "content-type": "application/octet-stream" },
    });
    f = await startFull({
      channels: CHANNELS,
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      guide: { refresh_interval_min: 10_000, logo_repositories: [] },
    });
  });
  after(async () => {
    await f.gw.stop();
    await origin.close();
  });

  it("serves a well-formed, DTD-valid, programme-free epg.xml while no source exists", async () => {
    const r = await epg();
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type") ?? "", /^application\/xml/);
    assert.match(r.text, /^<\?xml version="1.0" encoding="UTF-8"\?>/);
    assert.ok(!r.text.includes("<programme"));
    assert.ok(r.text.includes('<channel id="bbc">'));
    assert.ok(!r.text.includes('<channel id="off">'), "disabled channels are left out");
    assertDtdValid(r.text);
    const pl = await fetch(url("/v1/playlist.m3u")).then((x) => x.text());
    assert.ok(!pl.includes("x-tvg-url"), "no x-tvg-url without an active source");
  });

  it("answers 409 to a refresh while no source is enabled; presets are listed, disabled", async () => {
    assertError(await refresh(), 409, "conflict");
    const presets = await admin("/v1/admin/epg/presets");
    assert.equal(presets.status, 200);
    assert.ok(presets.body.presets.length >= 3);
    for (const p of presets.body.presets) {
      assert.equal(p.enabled, false);
      assert.match(p.url, /^https:\/\//);
    }
    const list = await admin("/v1/admin/epg/sources");
    assert.ok(list.body.sources.every((s: any) => s.enabled === false && s.source.preset));
  });

  it("validates source writes: unknown fields, time zone, URL scheme, If-Match (428/409)", async () => {
    const post = (body: unknown) => admin("/v1/admin/epg/sources", { body });
    assertError(await post({ id: "x", url: `${origin.url}/a`, extra: 1 }), 400, "invalid_request");
    assertError(
      await post({ id: "x", url: `${origin.url}/a`, timezone: "Mars/Olympus" }),
      400,
      "invalid_request",
    );
    assertError(
      await post({ id: "x", url: `${origin.url}/a`, timezone: "+01:00" }),
      400,
      "invalid_request",
    );
    assertError(await post({ id: "x", url: "ftp://127.0.0.1/a.xml" }), 400, "invalid_request");
    assertError(await post({ id: "x" }), 400, "invalid_request");
    assertError(await post({ id: "bad id", url: `${origin.url}/a` }), 400, "invalid_request");
    assertError(
      await post({ id: "x", url: `${origin.url}/a`, proxy: "not a route!" }),
      400,
      "invalid_request",
    );

    const created = await post({
      id: "alpha",
      name: "Alpha",
      url: `${origin.url}/alpha.xml`,
      timezone: "Europe/Berlin",
      proxy: "auto",
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body, {
      ok: true,
      source: {
        id: "alpha",
        name: "Alpha",
        url: `${origin.url}/alpha.xml`,
        timezone: "Europe/Berlin",
        proxy: "auto",
        enabled: true,
        preset: false,
      },
    });
    assertError(await post({ id: "alpha", url: `${origin.url}/alpha.xml` }), 409, "conflict");
    const put = (id: string, body: unknown, ifMatch?: string) =>
      admin(`/v1/admin/epg/sources/${id}`, {
        method: "PUT",
        body,
        headers: ifMatch === undefined ? {} : { "if-match": ifMatch },
      });
    assertError(await put("alpha", { name: "A" }), 428, "conflict");
    assertError(await put("alpha", { name: "A" }, '"7"'), 409, "conflict");
    assertError(await put("alpha", { name: "A", bogus: true }, '"1"'), 400, "invalid_request");
    assertError(await put("nope", { name: "A" }, '"1"'), 404, "not_found");
    const renamed = await put("alpha", { name: "Alpha guide", proxy: "direct" }, '"1"');
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.source.name, "Alpha guide");
    assert.equal(renamed.headers.get("etag"), '"2"');
    const del = await admin("/v1/admin/epg/sources/alpha", { method: "DELETE" });
    assertError(del, 428, "conflict");

    const beta = await post({ id: "beta", url: `${origin.url}/beta.xml.gz` });
    assert.equal(beta.status, 201, beta.text);
    assert.equal(beta.body.source.timezone, "UTC");
    assert.equal(beta.body.source.proxy, "direct");
  });

  it("overrides a preset by changed fields only and hides it on delete", async () => {
    const presetId = (await admin("/v1/admin/epg/presets")).body.presets[0].id as string;
    const put = await admin(`/v1/admin/epg/sources/${presetId}`, {
      method: "PUT",
      body: { name: "Renamed preset" },
      headers: { "if-match": '"1"' },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.source.name, "Renamed preset");
    assert.equal(put.body.source.enabled, false, "untouched fields keep the preset's values");
    assert.equal(put.body.source.preset, true);
    // Preset delete needs no If-Match: it hides.
    const del = await admin(`/v1/admin/epg/sources/${presetId}`, { method: "DELETE" });
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.hidden, true);
    const list = await admin("/v1/admin/epg/sources");
    assert.ok(!list.body.sources.some((s: any) => s.source.id === presetId));
    const presets = await admin("/v1/admin/epg/presets");
    assert.ok(
      presets.body.presets.some((p: any) => p.id === presetId),
      "still a preset",
    );
  });

  it("refreshes both sources: gzip by magic bytes, statuses, exact UTC instants", async () => {
    const r = await refresh();
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.ok, true, r.text);
    const alpha = r.body.statuses.find((s: any) => s.source_id === "alpha");
    const beta = r.body.statuses.find((s: any) => s.source_id === "beta");
    assert.equal(alpha.channel_count, 4);
    assert.equal(alpha.programme_count, 7);
    assert.equal(alpha.stale, false);
    assert.equal(alpha.error, null);
    assert.equal(alpha.available, true);
    assert.equal(alpha.metadata["generator-info-name"], "alpha-grabber");
    assert.equal(beta.metadata.gzip, true);
    assert.equal(beta.channel_count, 2);
    const list = await admin("/v1/admin/epg/sources");
    const st = list.body.statuses.find((s: any) => s.source_id === "alpha");
    assert.match(st.last_success, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const out = await epg();
    assertDtdValid(out.text);
    // +0100 and -0500 offsets honoured.
    assert.deepEqual(programmesOf(out.text, "bbc"), [
      "20260101190000 +0000 20260101200000 +0000 News &amp; Weather",
      // beta's 19:15-19:45 duplicate overlaps alpha's and is dropped; its 21:00 film is merged.
      "20260101210000 +0000 20260101220000 +0000 Late Film",
    ]);
    assert.deepEqual(programmesOf(out.text, "tq"), [
      "20260101200000 +0000 20260101210000 +0000 Été à Montréal",
    ]);
    // Offset-less times in Europe/Berlin: gap 02:30 → 03:30 CEST; overlap 02:30 → the earlier (CEST).
    assert.deepEqual(programmesOf(out.text, "mine"), [
      "20260329003000 +0000 20260329013000 +0000 Vor der Lücke",
      "20260329013000 +0000 20260329020000 +0000 In der Lücke",
      "20260715100000 +0000 20260715110000 +0000 Sommerzeit",
      "20261025003000 +0000 20261025020000 +0000 Doppelte Stunde",
    ]);
    assert.deepEqual(programmesOf(out.text, "f1"), ["20260101120000 +0000 - Grand Prix"]);
    assert.ok(out.text.includes('<category lang="en">News</category>'));
    assert.ok(out.text.includes('<rating system="FSK"><value>12</value></rating>'));
    assert.ok(!out.text.includes("<credits>"), "unsupported children are dropped");
    assert.ok(!out.text.includes('channel="off"'), "disabled channels have no programmes");
    assert.ok(!out.text.includes("bbc1.uk"), "channel ids are the gateway's");
    assert.equal(programmesOf(out.text, "local").length, 0);
  });

  it("matches real-world name variants, epg_id first, with ranked candidates", async () => {
    const r = await admin("/v1/admin/epg/matches");
    assert.equal(r.status, 200);
    const by = new Map(r.body.matches.map((m: any) => [m.channel_id, m]));
    const expect: Record<string, [string, string, string]> = {
      bbc: ["alpha", "bbc1.uk", "name"],
      erste: ["alpha", "daserste.de", "name"],
      tq: ["alpha", "telequebec.ca", "name"],
      cnn: ["beta", "cnn.int", "name"],
      f1: ["alpha", "sky.sports.f1", "name"],
      mine: ["alpha", "daserste.de", "epg_id"],
    };
    for (const [id, [source, epgId, method]] of Object.entries(expect)) {
      const m: any = by.get(id);
      assert.equal(m.status, "matched", `${id}: ${JSON.stringify(m)}`);
      assert.equal(m.match.source_id, source, id);
      assert.equal(m.match.epg_id, epgId, id);
      assert.equal(m.match.method, method, id);
      assert.ok(m.candidates.length >= 1);
    }
    assert.equal((by.get("mine") as any).match.manual, true);
    assert.equal((by.get("bbc") as any).match.manual, false);
    // Both sources carry bbc1.uk: the candidates rank the matched source first.
    assert.deepEqual(
      (by.get("bbc") as any).candidates.map((c: any) => [c.source_id, c.epg_id, c.score]),
      [
        ["alpha", "bbc1.uk", 1],
        ["beta", "bbc1.uk", 1],
      ],
    );
    const local: any = by.get("local");
    assert.equal(local.status, "unmatched");
    assert.equal(local.match, undefined);
    assert.deepEqual(
      (by.get("bbc") as any).logo_candidates.map((c: any) => c.source),
      ["guide"],
    );
  });

  it("carries x-tvg-url and gateway channel ids in both playlists", async () => {
    const pl = await fetch(url("/v1/playlist.m3u")).then((x) => x.text());
    assert.ok(pl.startsWith(`#EXTM3U x-tvg-url="${f.base}/v1/epg.xml.gz"`), pl);
    assert.ok(pl.includes('tvg-id="bbc"'));
    const key = await admin("/v1/admin/access-tokens", { body: { name: "k", channel_ids: [] } });
    assert.equal(key.status, 201, key.text);
    const kp = await fetch(url(`/p/${key.body.token}/playlist.m3u`)).then((x) => x.text());
    assert.ok(kp.startsWith(`#EXTM3U x-tvg-url="${f.base}/v1/epg.xml.gz"`), kp);
  });

  it("serves epg.xml.gz as application/gzip with the same document, ETag and cache headers", async () => {
    const plain = await epg();
    const r = await fetch(url("/v1/epg.xml.gz"));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/gzip");
    assert.match(r.headers.get("cache-control") ?? "", /^public, max-age=\d+/);
    const etag = r.headers.get("etag");
    assert.ok(etag !== null && etag.length > 4);
    assert.equal(gunzipSync(Buffer.from(await r.arrayBuffer())).toString("utf8"), plain.text);
    const again = await fetch(url("/v1/epg.xml.gz"), { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
  });

  it("uses conditional requests: an unchanged guide is not downloaded again", async () => {
    const r = await refresh();
    assert.equal(r.body.ok, true, r.text);
    const seen = origin.seen.get("/alpha.xml")!;
    assert.equal(seen[seen.length - 1]!["if-none-match"], '"alpha-1"');
    const alpha = r.body.statuses.find((s: any) => s.source_id === "alpha");
    assert.equal(alpha.metadata.not_modified, true);
    assert.equal(alpha.programme_count, 7);
  });

  it("keeps the last good data, marked stale, when a source fails; ok is false", async () => {
    const before = (await epg()).text;
    origin.routes.set("/alpha.xml", { status: 500, body: "boom" });
    const r = await refresh();
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, false);
    const alpha = r.body.statuses.find((s: any) => s.source_id === "alpha");
    assert.equal(alpha.stale, true);
    assert.match(alpha.error, /HTTP 500/);
    assert.equal(alpha.available, true);
    assert.equal(alpha.programme_count, 7);
    assert.equal((await epg()).text, before, "programmes are not wiped");
    // A truncated document is a failure too, not a partial guide.
    origin.routes.set("/alpha.xml", { body: alphaGuide(origin.url).slice(0, 900) });
    const t = await refresh();
    assert.equal(t.body.ok, false);
    assert.equal((await epg()).text, before);
  });

  it("keeps a manual match across refreshes and marks it stale when its guide channel leaves", async () => {
    const detail = await admin("/v1/admin/channels/local");
    const put = await admin("/v1/admin/channels/local", {
      method: "PUT",
      body: { ...CHANNELS.find((c) => c.id === "local"), epg_id: "telequebec.ca" },
      headers: { "if-match": detail.headers.get("etag") ?? "" },
    });
    assert.equal(put.status, 200, put.text);
    origin.routes.set("/alpha.xml", {
      body: alphaGuide(origin.url, { withErste: false }),
      etag: '"alpha-2"',
    });
    const r = await refresh();
    assert.equal(r.body.ok, true, r.text);
    const by = new Map(
      (await admin("/v1/admin/epg/matches")).body.matches.map((m: any) => [m.channel_id, m]),
    );
    const local: any = by.get("local");
    assert.equal(local.status, "matched");
    assert.equal(local.match.epg_id, "telequebec.ca");
    assert.equal(local.match.manual, true);
    const mine: any = by.get("mine");
    assert.equal(mine.status, "stale", "the guide channel left: kept, marked stale");
    assert.equal(mine.match.epg_id, "daserste.de");
    const erste: any = by.get("erste");
    assert.equal(erste.status, "stale");
    assert.equal(erste.match.epg_id, "daserste.de");
    assertDtdValid((await epg()).text);
  });

  it("refuses billion laughs, external entities and a gzip bomb; the process stays up", async () => {
    origin.routes.set("/laughs.xml", { body: BILLION_LAUGHS });
    origin.routes.set("/xxe.xml", { body: EXTERNAL_ENTITY });
    // 128 MiB of valid, repetitive XMLTV, well under 1 MiB on the wire.
    const unit = Buffer.from('<channel id="x"><display-name>a</display-name></channel>\n');
    // Compressed off the event loop: a blocked test process would lose its keep-alive sockets.
    const bomb = await promisify(gzip)(
      Buffer.concat([Buffer.from("<tv>"), Buffer.alloc(128 * 1_048_576, unit)]),
      { level: 9 },
    );
    origin.routes.set("/bomb.xml.gz", { body: bomb });
    for (const id of ["laughs", "xxe", "bomb"]) {
      const path = id === "bomb" ? "/bomb.xml.gz" : `/${id}.xml`;
      const c = await admin("/v1/admin/epg/sources", { body: { id, url: `${origin.url}${path}` } });
      assert.equal(c.status, 201, c.text);
    }
    const r = await refresh().catch((err) => {
      throw new Error(`gateway gone: ${f.gw.stderr()} ${f.gw.stdout().slice(-3000)}`, {
        cause: err,
      });
    });
    assert.equal(r.body.ok, false);
    const st = new Map(r.body.statuses.map((s: any) => [s.source_id, s]));
    assert.match((st.get("laughs") as any).error, /DTD internal subset/);
    assert.match((st.get("xxe") as any).error, /DTD internal subset/);
    assert.match((st.get("bomb") as any).error, /gzip bomb|decompress/);
    assert.equal((st.get("alpha") as any).error, null);
    const health = await requestJson(url("/healthz")).catch((err) => {
      throw new Error(`gateway gone: ${f.gw.stderr()}`, { cause: err });
    });
    assert.deepEqual(health.body, { status: "ok" });
    assert.equal(f.gw.proc.exitCode, null);
    assertDtdValid((await epg()).text);
  });

  it("routes a source's download by its proxy setting, failing closed on an unknown profile", async () => {
    origin.routes.set("/routed.xml", { body: alphaGuide(origin.url) });
    const c = await admin("/v1/admin/epg/sources", {
      body: { id: "routed", url: `${origin.url}/routed.xml`, proxy: "no-such-profile" },
    });
    assert.equal(c.status, 201, c.text);
    const r = await refresh();
    const st = r.body.statuses.find((s: any) => s.source_id === "routed");
    assert.match(st.error, /no-such-profile/);
    assert.equal(origin.hits("/routed.xml"), 0, "never sent direct");
    const del = await admin("/v1/admin/epg/sources/routed", {
      method: "DELETE",
      headers: { "if-match": '"1"' },
    });
    assert.equal(del.status, 200, del.text);
  });

  it("deletes a custom source with If-Match and drops its data", async () => {
    const list = await admin("/v1/admin/epg/sources");
    const beta = list.body.sources.find((s: any) => s.source.id === "beta");
    const del = await admin("/v1/admin/epg/sources/beta", {
      method: "DELETE",
      headers: { "if-match": `"${beta.revision}"` },
    });
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.removed, true);
    const out = await epg();
    assert.ok(!out.text.includes("Late Film"));
    assert.deepEqual(programmesOf(out.text, "cnn"), []);
  });
});

describe("guide: shutdown during a refresh", () => {
  it("aborts the download and exits 0 within 10 s", async () => {
    const origin = await startGuideOrigin();
    origin.routes.set("/slow.xml", { body: alphaGuide(origin.url), delayMs: 20_000 });
    const gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      security: { allowed_hosts: ["127.0.0.1"] },
      guide: { logo_repositories: [] },
    });
    try {
      const { login } = await import("../harness/http-client.js");
      const { ADMIN_PASSWORD } = await import("../harness/users.js");
      const token = await login(gw.url, "admin", ADMIN_PASSWORD);
      const c = await requestJson(`${gw.url}/v1/admin/epg/sources`, {
        token,
        body: { id: "slow", url: `${origin.url}/slow.xml` },
      });
      assert.equal(c.status, 201, c.text);
      const pending = requestJson(`${gw.url}/v1/admin/epg/refresh`, {
        token,
        method: "POST",
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(origin.hits("/slow.xml"), 1, "the download is in progress");
      const t0 = Date.now();
      assert.equal(await gw.stop(), 0, gw.stderr());
      assert.ok(Date.now() - t0 < 10_000);
      await pending;
    } finally {
      if (gw.proc.exitCode === null) await gw.stop();
      await origin.close();
    }
  });
});
