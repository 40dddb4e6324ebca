import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";
import { createDatabase } from "../harness/postgres-server.js";
import { TEST_STORAGE } from "../harness/storage-mode.js";
import { until } from "../harness/until.js";
import { type GuideOrigin, startGuideOrigin } from "./guide-origin.js";
import { alphaGuide } from "./xmltv-fixtures.js";

/**
 * The guide with several instances on one PostgreSQL database (docs/guide.md
 * "Several instances"): a due source is refreshed by the one instance that
 * claims it, every instance serves the same epg.xml from the database, and
 * writes on one are seen by the others.
 */
describe("guide: several instances on one database", {
  skip:
    TEST_STORAGE !== "postgres" &&
    "cluster mode: runs in the PostgreSQL pass (SVC_TEST_STORAGE=postgres)",
}, () => {
  let origin: GuideOrigin;
  let url: string;
  const started: FullGateway[] = [];
  const instance = async () => {
    const f = await startFull(
      {
        channels: [
          { id: "bbc", title: "BBC ONE", ingress: "hls", source_url: "http://127.0.0.1:9/b.m3u8" },
        ],
        // One public address, as behind a load balancer: the same URLs in every document.
        server: { public_base_url: "http://guide.test" },
        security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
        // Only the start's turn runs in this test.
        guide: { refresh_interval_min: 10_000, logo_repositories: [] },
      },
      { env: { SVC_DATABASE_URL: url } },
    );
    started.push(f);
    return f;
  };
  const statusOf = async (f: FullGateway) => {
    const r = await requestJson(`${f.base}/v1/admin/epg/sources`, { token: f.admin });
    return r.body.statuses.find((s: any) => s.source_id === "alpha");
  };
  const epg = (f: FullGateway) =>
    fetch(`${f.base}/v1/epg.xml`).then(async (r) => ({
      etag: r.headers.get("etag"),
      text: await r.text(),
    }));

  before(async () => {
    origin = await startGuideOrigin();
    origin.routes.set("/alpha.xml", { body: alphaGuide(origin.url), etag: '"alpha-1"' });
    const created = await createDatabase();
    assert.ok(created !== undefined);
    url = created;
  });
  after(async () => {
    await Promise.all(started.map((f) => f.gw.stop()));
    await origin.close();
  });

  it("refreshes a due source once, on the instance that claims it; every instance serves it", async () => {
    const a = await instance();
    const c = await requestJson(`${a.base}/v1/admin/epg/sources`, {
      token: a.admin,
      body: { id: "alpha", url: `${origin.url}/alpha.xml` },
    });
    assert.equal(c.status, 201, c.text);
    assert.equal(origin.hits("/alpha.xml"), 0, "created after a's start: not refreshed yet");
    // b starts with the source due (never attempted): its first turn claims and reads it.
    const b = await instance();
    const st = await until("b's refresh, seen on a", async () => {
      const s = await statusOf(a);
      return s?.available ? s : undefined;
    });
    assert.equal(st.programme_count, 7);
    assert.equal(origin.hits("/alpha.xml"), 1);
    // c starts an interval too early: nothing is due, nothing is downloaded.
    const c3 = await instance();
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(origin.hits("/alpha.xml"), 1, "one refresh per interval for the cluster");
    const outs = await Promise.all([a, b, c3].map(epg));
    assert.ok(outs[0]!.text.includes("News &amp; Weather"), outs[0]!.text.slice(0, 500));
    for (const o of outs) {
      assert.equal(o.text, outs[0]!.text, "the same document on every instance");
      assert.equal(o.etag, outs[0]!.etag, "and the same ETag, for a cache in front");
    }
    const matches = await requestJson(`${c3.base}/v1/admin/epg/matches`, { token: c3.admin });
    assert.equal(matches.body.matches[0].match.epg_id, "bbc1.uk");
  });

  it("sees a manual refresh and a deletion made on another instance", async () => {
    const [a, b] = started as [FullGateway, FullGateway];
    const before = (await statusOf(a)).last_attempt;
    await new Promise((r) => setTimeout(r, 1_100));
    const r = await requestJson(`${b.base}/v1/admin/epg/refresh`, {
      token: b.admin,
      method: "POST",
    });
    assert.equal(r.body.ok, true, r.text);
    assert.equal(origin.hits("/alpha.xml"), 2, "an explicit refresh runs where it was asked");
    await until("the new attempt, seen on a", async () =>
      (await statusOf(a)).last_attempt !== before ? true : undefined,
    );
    const list = await requestJson(`${b.base}/v1/admin/epg/sources`, { token: b.admin });
    const alpha = list.body.sources.find((s: any) => s.source.id === "alpha");
    const del = await requestJson(`${a.base}/v1/admin/epg/sources/alpha`, {
      token: a.admin,
      method: "DELETE",
      headers: { "if-match": `"${alpha.revision}"` },
    });
    assert.equal(del.status, 200, del.text);
    await until("the deletion, seen on b", async () =>
      (await epg(b)).text.includes("<programme") ? undefined : true,
    );
  });
});
