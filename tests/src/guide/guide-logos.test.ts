import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { assertError, type FullGateway, startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";
import { hlsChannel as ch } from "./guide-checks.js";
import { GIF_1X1, type GuideOrigin, PNG_1X1, startGuideOrigin } from "./guide-origin.js";

describe("guide: /v1/logo/{id}", () => {
  let origin: GuideOrigin;
  let f: FullGateway;
  const url = (p: string) => `${f.base}${p}`;

  before(async () => {
    origin = await startGuideOrigin();
    origin.routes.set("/logos/own.png", {
      body: PNG_1X1,
      headers: { "content-type": "text/plain" },
    });
    origin.routes.set("/logos/html.png", { body: "<html>not an image</html>" });
    origin.routes.set("/icons/guide.gif", { body: GIF_1X1 });
    origin.routes.set("/repo/repochannel.png", { body: PNG_1X1 });
    origin.routes.set("/g.xml", {
      body: `<?xml version="1.0"?><tv><channel id="gc"><display-name>Guide Channel</display-name><icon src="${origin.url}/icons/guide.gif"/></channel></tv>`,
    });
    f = await startFull({
      channels: [
        ch("own", "Own Logo", { logo_url: `${origin.url}/logos/own.png` }),
        ch("guided", "Guide Channel", { logo_url: `${origin.url}/logos/missing.png` }),
        ch("repo", "Repo Channel", { logo_url: `${origin.url}/logos/html.png` }),
        ch("none", "Nothing Anywhere", { logo_url: `${origin.url}/logos/missing2.png` }),
        ch("hidden", "Hidden", { disabled: true, logo_url: `${origin.url}/logos/own.png` }),
      ],
      security: { allowed_hosts: ["127.0.0.1"] },
      guide: { logo_repositories: [`${origin.url}/repo/{snp}.png`] },
    });
    const c = await requestJson(url("/v1/admin/epg/sources"), {
      token: f.admin,
      body: { id: "g", url: `${origin.url}/g.xml` },
    });
    assert.equal(c.status, 201, c.text);
    const r = await requestJson(url("/v1/admin/epg/refresh"), { token: f.admin, method: "POST" });
    assert.equal(r.body.ok, true, r.text);
  });
  after(async () => {
    await f.gw.stop();
    await origin.close();
  });

  const logo = async (id: string) => {
    const r = await fetch(url(`/v1/logo/${id}`));
    return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
  };

  it("serves the channel's own logo, sniffed, with the spec's cache headers", async () => {
    const r = await logo("own");
    assert.equal(r.status, 200);
    assert.equal(
      r.headers.get("content-type"),
      "image/png",
      "sniffed, not the origin's text/plain",
    );
    assert.equal(r.headers.get("cache-control"), "public, max-age=3600, stale-if-error=86400");
    assert.equal(r.headers.get("x-svc-logo-source"), "channel");
    assert.deepEqual(r.bytes, PNG_1X1);
  });

  it("falls back in order: guide icon, then the logo repositories; non-images are skipped", async () => {
    const g = await logo("guided");
    assert.equal(g.status, 200);
    assert.equal(g.headers.get("x-svc-logo-source"), "guide");
    assert.equal(g.headers.get("content-type"), "image/gif");
    assert.equal(origin.hits("/logos/missing.png"), 1, "the channel's logo_url was tried first");
    const r = await logo("repo");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("x-svc-logo-source"), "repository-1");
    assert.equal(origin.hits("/logos/html.png"), 1);
    assert.deepEqual(r.bytes, PNG_1X1);
  });

  it("answers 502 upstream_error when every candidate fails, 404 for unknown or disabled channels", async () => {
    assertError(await requestJson(url("/v1/logo/none")).then((r) => r), 502, "upstream_error");
    assertError(await requestJson(url("/v1/logo/nope")), 404, "not_found");
    assertError(await requestJson(url("/v1/logo/hidden")), 404, "not_found");
  });

  it("caches on disk: one fetch per hour at most, stale copy on upstream error", async () => {
    const hits = origin.hits("/logos/own.png");
    for (let i = 0; i < 3; i++) assert.equal((await logo("own")).status, 200);
    assert.equal(origin.hits("/logos/own.png"), hits, "served from the cache");
    // Age the cached record past the hour, then break the origin.
    const name = createHash("sha256").update("own").digest("hex");
    const metaFile = join(f.gw.dataDir, "logos", `${name}.json`);
    const meta = JSON.parse(readFileSync(metaFile, "utf8"));
    writeFileSync(metaFile, JSON.stringify({ ...meta, fetched_at: Date.now() - 2 * 3_600_000 }));
    origin.routes.set("/logos/own.png", { status: 503 });
    const stale = await logo("own");
    assert.equal(stale.status, 200);
    assert.deepEqual(stale.bytes, PNG_1X1);
    assert.equal(stale.headers.get("x-svc-logo-source"), "channel");
    assert.equal(origin.hits("/logos/own.png"), hits + 1, "tried once");
    await logo("own");
    assert.equal(origin.hits("/logos/own.png"), hits + 1, "not retried within the hour");
  });
});
