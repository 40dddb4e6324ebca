import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { CHROMIUM, launchChromium, playFor, startHlsJsPage } from "../harness/hlsjs-page.js";
import { authSection } from "../harness/users.js";

describe("hls.js in headless Chromium plays a DASH channel (LL-HLS)", {
  skip: existsSync(CHROMIUM) ? false : "chromium not installed",
}, () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  let page: Awaited<ReturnType<typeof startHlsJsPage>>;
  let browser: Browser;

  before(async () => {
    page = await startHlsJsPage();
    src = await startDashLiveSource({ heights: [360, 180], languages: ["eng", "deu"] });
    await src.waitForSegments(3);
    gw = await startGateway("lite", {
      auth: authSection(),
      security: {
        allowed_hosts: ["127.0.0.1"],
        play_require_auth: false,
        cors_origins: [page.origin],
      },
      channels: [{ id: "d1", title: "d1", ingress: "dash", source_url: src.mpdUrl }],
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await src?.stop();
    await page?.close();
  });

  it("advances currentTime by 10 s with no fatal error", { timeout: 180_000 }, async () => {
    const tab = await browser.newPage();
    const master = `${gw.url}/v1/play/d1/index.m3u8`;
    const { end } = await playFor(tab, page.origin, master, 10);
    assert.equal(end.lowLatency, true);
  });
});
