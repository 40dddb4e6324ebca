import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { BrowserContext } from "playwright-core";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { hlsChannel } from "../guide/guide-checks.js";
import { type GuideOrigin, startGuideOrigin } from "../guide/guide-origin.js";
import { requestJson } from "../harness/http-client.js";
import { CHROMIUM, launchChromium, signIn, watchPage } from "./console-fixture.js";

const GUIDE = `<?xml version="1.0" encoding="UTF-8"?>
<tv>
<channel id="BBCOne.uk"><display-name>BBC One</display-name></channel>
<channel id="DiscoveryChannel.us"><display-name>Discovery Channel</display-name></channel>
<channel id="SkySports1.uk"><display-name>Sky Sports 1</display-name></channel>
<programme start="20260101000000 +0000" channel="BBCOne.uk"><title>News</title></programme>
</tv>
`;

/** Issue 32 item 4: the guide match screen says why, and accepts a candidate in one click. */
describe("console: guide matches (why, one-click accept)", {
  skip: existsSync(CHROMIUM) ? false : "chromium not installed",
}, () => {
  let origin: GuideOrigin;
  let full: FullGateway;
  let browser: BrowserContext;
  const api = (path: string, init: Parameters<typeof requestJson>[1] = {}) =>
    requestJson(`${full.base}${path}`, { token: full.admin, ...init });

  before(async () => {
    origin = await startGuideOrigin();
    origin.routes.set("/guide.xml", { body: GUIDE });
    full = await startFull({
      channels: [
        hlsChannel("bbc.test", "UK: BBC One HD"),
        hlsChannel("disc.test", "Discovery Chanel"),
        hlsChannel("sky.test", "Sky Sports 2"),
      ],
      security: { allowed_hosts: ["127.0.0.1"] },
      guide: { refresh_interval_min: 10_000, logo_repositories: [] },
    });
    const c = await api("/v1/admin/epg/sources", {
      body: { id: "local", url: `${origin.url}/guide.xml` },
    });
    assert.equal(c.status, 201, c.text);
    const r = await api("/v1/admin/epg/refresh", { method: "POST" });
    assert.equal(r.status, 200, r.text);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await full?.gw.stop();
    await origin?.close();
  });

  it("shows the reason of each match and accepts a fuzzy candidate with one click", async () => {
    const page = await browser.newPage();
    const problems = await watchPage(page);
    await signIn(page, full.base);
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await page.goto(`${full.base}/admin/#/guide`);
    await page.getByRole("heading", { name: "Channel matches" }).waitFor();

    const row = (id: string) => page.getByTestId(`match-${id}`);
    await row("bbc.test").getByText("exact name", { exact: true }).waitFor();
    assert.match((await row("bbc.test").textContent()) ?? "", /BBC One · BBCOne\.uk · local/);
    assert.match((await row("disc.test").textContent()) ?? "", /fuzzy 0\.9\d/);
    const sky = (await row("sky.test").textContent()) ?? "";
    assert.match(sky, /unmatched/);
    assert.match(sky, /Sky Sports 1 · SkySports1\.uk · local \(fuzzy 0\.\d\d\)/);

    await page
      .getByRole("button", { name: "Use Sky Sports 1 (SkySports1.uk) for sky.test" })
      .click();
    await page.getByText("Guide entry SkySports1.uk set for sky.test.").waitFor();
    await row("sky.test").getByText("exact id (set by operator)").waitFor();

    const channel = (await api("/v1/admin/channels/sky.test")).body.channel;
    assert.equal(channel.epg_id, "SkySports1.uk");
    assert.equal(channel.epg_source, "local");
    const m = (await api("/v1/admin/epg/matches")).body.matches.find(
      (x: any) => x.channel_id === "sky.test",
    );
    assert.equal(m.status, "matched");
    assert.deepEqual(
      [m.match.epg_id, m.match.reason, m.match.score, m.match.manual],
      ["SkySports1.uk", "exact_id", 1, true],
    );
    assert.deepEqual(problems.csp, []);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});
