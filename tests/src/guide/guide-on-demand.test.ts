import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { startGuideOrigin } from "./guide-origin.js";
import { alphaGuide } from "./xmltv-fixtures.js";

// Issue 30 item 8: with guide.cache false, /v1/epg.xml (public) refreshes on demand.
// Each request used to download every source again, so anyone could make the gateway
// flood a guide origin; now a source is refreshed at most once per guide.min_refresh_sec.

/** Long enough that the burst below ends inside it even on a loaded machine. */
const MIN_REFRESH_SEC = 6;

describe("guide: guide.cache false refreshes on demand, at most once per guide.min_refresh_sec", () => {
  it("coalesces concurrent requests and refreshes each source (good or failing) once per period", async () => {
    const origin = await startGuideOrigin();
    origin.routes.set("/g.xml", { body: alphaGuide(origin.url), delayMs: 400 });
    origin.routes.set("/bad.xml", { status: 500, body: "down" });
    const gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      security: { allowed_hosts: ["127.0.0.1"] },
      guide: { cache: false, min_refresh_sec: MIN_REFRESH_SEC, logo_repositories: [] },
      channels: [
        { id: "bbc", title: "BBC One", ingress: "hls", source_url: "http://127.0.0.1:9/b.m3u8" },
      ],
    });
    try {
      const token = await login(gw.url, "admin", ADMIN_PASSWORD);
      for (const [id, path] of [
        ["g", "/g.xml"],
        ["bad", "/bad.xml"],
      ]) {
        const c = await requestJson(`${gw.url}/v1/admin/epg/sources`, {
          token,
          body: { id, url: `${origin.url}${path}` },
        });
        assert.equal(c.status, 201, c.text);
      }
      assert.equal(origin.hits("/g.xml"), 0, "creating a source does not refresh it");
      const epg = () => fetch(`${gw.url}/v1/epg.xml`).then((r) => r.text());

      const first = await epg();
      const firstAnsweredAt = Date.now();
      assert.ok(first.includes("News &amp; Weather"), first.slice(0, 300));
      assert.deepEqual([origin.hits("/g.xml"), origin.hits("/bad.xml")], [1, 1]);

      // A burst well inside the period: concurrent and sequential requests, both
      // answered from the stored guide without a download.
      const both = await Promise.all([
        epg(),
        fetch(`${gw.url}/v1/epg.xml.gz`).then((r) => r.arrayBuffer()),
      ]);
      assert.ok(both[0].includes("News &amp; Weather"));
      for (let i = 0; i < 5; i++) assert.ok((await epg()).includes("News &amp; Weather"));
      const burstMs = Date.now() - firstAnsweredAt;
      assert.ok(burstMs < MIN_REFRESH_SEC * 1000, `the burst took ${burstMs} ms`);
      assert.deepEqual(
        [origin.hits("/g.xml"), origin.hits("/bad.xml")],
        [1, 1],
        "no download inside guide.min_refresh_sec",
      );
      const status = await requestJson(`${gw.url}/v1/admin/epg/sources`, { token });
      const bad = status.body.statuses.find((s: { source_id: string }) => s.source_id === "bad");
      assert.match(bad.error, /HTTP 500/);

      // The period is measured from the claim, made before the first answer.
      await new Promise((r) =>
        setTimeout(r, firstAnsweredAt + MIN_REFRESH_SEC * 1000 + 200 - Date.now()),
      );
      assert.ok((await epg()).includes("News &amp; Weather"));
      assert.deepEqual([origin.hits("/g.xml"), origin.hits("/bad.xml")], [2, 2]);
    } finally {
      await gw.stop();
      await origin.close();
    }
  });
});
