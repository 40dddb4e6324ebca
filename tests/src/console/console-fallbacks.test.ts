import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { CHROMIUM, sampleConsole, seriousAxeViolations } from "./console-fixture.js";

// Never contacted: the channels are only written and read back.
const A = "http://127.0.0.1:9";

/** Fallback sources in the channel form and duplicates as fallbacks in the M3U import screen. */
describe("console: fallback sources", {
  skip: existsSync(CHROMIUM) ? false : "chromium not installed",
}, () => {
  const { api, adminPage } = sampleConsole();

  const label = (page: Page, text: string) => page.getByLabel(text, { exact: true });

  it("creates a channel with two fallbacks, edits and reorders them, keeping a blank secret", async () => {
    const { page, problems } = await adminPage("channels");
    await page.getByRole("button", { name: "New channel" }).click();
    await label(page, "ID").fill("fb.form");
    await label(page, "Title").fill("Form FB");
    await label(page, "Source URL").fill(`${A}/fb/main.m3u8`);
    await page.getByRole("button", { name: "Add fallback source" }).click();
    await page.getByRole("button", { name: "Add fallback source" }).click();
    await label(page, "Fallback 1 source URL").fill(`${A}/fb/one.m3u8`);
    await label(page, "Fallback 1 User-Agent").fill("FbAgent/1");
    await page.getByRole("button", { name: "Add fallback 1 header" }).click();
    await label(page, "Fallback 1 header 1 name").fill("Authorization");
    await label(page, "Fallback 1 header 1 value").fill("Bearer fb-one");
    // An upstream without a path: the API's error lands under the second entry's path.
    await label(page, "Fallback 2 upstream").selectOption("origin");
    await page.getByRole("button", { name: "Create channel" }).click();
    const path2 = label(page, "Fallback 2 upstream path");
    await page.getByTestId("fallback-2").getByText("required with upstream").waitFor();
    assert.equal(await path2.getAttribute("aria-invalid"), "true");
    assert.equal(await label(page, "Fallback 1 upstream path").getAttribute("aria-invalid"), null);
    await path2.fill("fb/two.m3u8");
    await page.getByRole("button", { name: "Create channel" }).click();
    await page.getByText("Channel created.").waitFor();

    const stored = async () => (await api("/v1/admin/channels/fb.form")).body.channel;
    const one = {
      source_url: `${A}/fb/one.m3u8`,
      upstream: "",
      path: "",
      headers: { Authorization: "" },
      user_agent: "FbAgent/1",
    };
    const two = {
      source_url: "",
      upstream: "origin",
      path: "fb/two.m3u8",
      headers: {},
      user_agent: "",
    };
    assert.deepEqual((await stored()).fallback_sources, [one, two]);

    // Reload: the form shows what is stored, the secret as "set".
    await page.reload();
    await page.getByRole("button", { name: "Form FB", exact: true }).click();
    await page.getByText("Edit fb.form").waitFor();
    await page.getByTestId("fallback-1").getByTestId("secret-set").waitFor();
    assert.equal(await label(page, "Fallback 1 source URL").inputValue(), one.source_url);
    // The value's label carries the "set" badge.
    assert.equal(await page.getByLabel(/^Fallback 1 header 1 value/).inputValue(), "");
    assert.equal(await label(page, "Fallback 2 upstream path").inputValue(), "fb/two.m3u8");

    // Edit the second, move it first, save: the first keeps its secret though left blank.
    await label(page, "Fallback 2 upstream path").fill("fb/two-b.m3u8");
    await page.getByRole("button", { name: "Move fallback 2 up" }).click();
    assert.equal(await label(page, "Fallback 1 upstream path").inputValue(), "fb/two-b.m3u8");
    await page.getByRole("button", { name: "Save channel" }).click();
    await page.getByText("Channel saved.").waitFor();
    assert.deepEqual((await stored()).fallback_sources, [{ ...two, path: "fb/two-b.m3u8" }, one]);
    const secretKept = await api("/v1/admin/channels/fb.form");
    assert.equal(secretKept.text.includes("fb-one"), false, "the secret is never shown");

    // Moving the secret's source to another origin leaves the secret behind, and says so.
    await label(page, "Fallback 2 source URL").fill("http://127.0.0.2:9/fb/one.m3u8");
    await page.getByRole("button", { name: "Save channel" }).click();
    await page
      .getByText(/Stored secrets not kept .*fallback_sources\[1\]\.headers\.Authorization/)
      .waitFor();
    assert.deepEqual((await stored()).fallback_sources[1].headers, {});

    // Removing one and the limit of eight.
    await page.getByRole("button", { name: "Remove fallback 2", exact: true }).click();
    const add = page.getByRole("button", { name: "Add fallback source" });
    for (let i = 0; i < 7; i++) await add.click();
    assert.equal(await add.isDisabled(), true, "at most 8 fallback sources");
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(problems.csp, []);
    assert.deepEqual(
      problems.errors.filter((e) => !/status of 400/.test(e)),
      [],
    );
    await page.close();
  });

  it("imports entries sharing a tvg-id as one channel with fallbacks when the box is ticked", async () => {
    const { page, problems } = await adminPage("m3u");
    const playlist = [
      "#EXTM3U",
      '#EXTINF:-1 tvg-id="ui.fb",UI FB',
      `${A}/ui/main.m3u8`,
      '#EXTINF:-1 tvg-id="ui.fb",UI FB backup',
      `${A}/ui/backup.m3u8`,
      "",
    ].join("\n");
    await page.getByLabel("Or paste the playlist").fill(playlist);
    await page.getByLabel(/Entries sharing a tvg-id become one channel/).check();
    await page.getByRole("button", { name: "Preview import" }).click();
    const summary = page.getByTestId("import-summary");
    await summary.waitFor();
    assert.match(
      (await summary.textContent()) ?? "",
      /2 entries: 1 to create, 0 to update, 0 skipped, 1 as fallback sources/,
    );
    await page.getByRole("cell", { name: "fallback 1 of ui.fb" }).waitFor();
    await page.getByRole("cell", { name: "create + 1 fallback source(s)" }).waitFor();
    await page.getByRole("button", { name: "Apply import" }).click();
    await page.getByText(/Imported: 1 created/).waitFor();
    const r = await api("/v1/admin/channels/ui.fb");
    assert.equal(r.body.channel.source_url, `${A}/ui/main.m3u8`);
    assert.deepEqual(
      r.body.channel.fallback_sources.map((f: { source_url: string }) => f.source_url),
      [`${A}/ui/backup.m3u8`],
    );
    assert.equal((await api("/v1/admin/channels/ui.fb-2")).status, 404);
    assert.deepEqual(problems.csp, []);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});
