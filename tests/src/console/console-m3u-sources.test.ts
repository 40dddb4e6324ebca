import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { BrowserContext } from "playwright-core";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";
import {
  CHROMIUM,
  launchChromium,
  scrollsSideways,
  seriousAxeViolations,
  signIn,
  watchPage,
} from "./console-fixture.js";

/** The "M3U sources" screen (extension `m3u_sources`) against a loopback provider list. */
describe("console: M3U sources screen", {
  skip: existsSync(CHROMIUM) ? false : "chromium not installed",
}, () => {
  let full: FullGateway;
  let browser: BrowserContext;
  let origin: Server;
  let listUrl: string;
  before(async () => {
    origin = createServer((_req, res) => {
      res
        .writeHead(200, { "content-type": "audio/x-mpegurl" })
        .end(
          [
            "#EXTM3U",
            '#EXTINF:-1 tvg-id="screen.one" group-title="News",Screen One',
            "http://127.0.0.1:9/one.m3u8",
            '#EXTINF:-1 tvg-id="screen.two" group-title="News",Screen Two',
            "http://127.0.0.1:9/two.m3u8",
            "",
          ].join("\n"),
        );
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    listUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/list.m3u`;
    full = await startFull({
      security: { allowed_hosts: ["127.0.0.1"] },
      extensions: { m3u_sources: true },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await full?.gw.stop();
    await new Promise<void>((resolve) => origin.close(() => resolve()));
  });

  it("adds a source, refreshes it now and shows the last result, accessibly at both widths", async () => {
    const page = await browser.newPage();
    const problems = await watchPage(page);
    await signIn(page, full.base);
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await page.goto(`${full.base}/admin/#/m3u-sources`);
    await page.getByRole("heading", { name: "M3U sources", exact: true }).waitFor();
    await page.getByRole("button", { name: "Add source" }).click();
    await page.getByLabel("Source ID").fill("screen");
    await page.getByLabel("Playlist URL (or a path under the upstream)").fill(listUrl);
    await page.getByLabel("Refresh on schedule").uncheck();
    await page.getByRole("button", { name: "Save source" }).click();
    await page.getByText("M3U source screen saved.").waitFor();
    await page.getByRole("button", { name: "Refresh now screen" }).click();
    await page.getByText("screen refreshed.").waitFor();
    await page.getByText("+2 created, 0 updated, 0 gone, 0 skipped").waitFor();
    const channels = (await requestJson(`${full.base}/v1/admin/channels`, { token: full.admin }))
      .body.channels;
    const owned = channels.filter((c: any) => c.m3u_source === "screen").map((c: any) => c.title);
    assert.deepEqual(owned.sort(), ["Screen One", "Screen Two"]);
    // As every screen (console-browser.test.ts): no serious axe violation, no sideways scroll.
    assert.deepEqual(await seriousAxeViolations(page), []);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      assert.equal(await scrollsSideways(page), false, `scrolls sideways at ${width}px`);
    }
    assert.deepEqual(problems.csp, []);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});
