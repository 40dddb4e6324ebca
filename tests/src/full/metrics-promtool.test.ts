import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import { type FullGateway, startFull } from "./full-fixture.js";

/** promtool comes with Debian's `prometheus` package (.ci/run installs it when missing). */
const promtool = spawnSync("promtool", ["--version"], { stdio: "ignore" }).status === 0;

describe("full: /metrics passes promtool (issue 12 item 10)", {
  skip: !promtool && "promtool not installed",
}, () => {
  let f: FullGateway;
  before(async () => {
    f = await startFull();
  });
  after(async () => {
    await f.gw.stop();
  });

  it("has no gauge named *_total: `promtool check metrics` prints nothing and exits 0", async () => {
    // Some traffic first, so the request counters and histograms have series.
    await requestJson(`${f.base}/v1/me`, { token: f.admin });
    await requestJson(`${f.base}/v1/me`, { token: `svc_v1_${"C".repeat(48)}` });
    const text = await (await fetch(`${f.base}/metrics`)).text();
    const check = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    assert.equal(`${check.stdout}${check.stderr}`.trim(), "", "promtool found problems");
    assert.equal(check.status, 0);
    // The three renamed gauges keep their value under the new names.
    for (const name of [
      "svc_nodejs_handles_active",
      "svc_nodejs_requests_active",
      "svc_nodejs_resources_active",
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} gauge$`, "m"), name);
      assert.match(text, new RegExp(`^${name} \\d+$`, "m"), name);
    }
    assert.doesNotMatch(text, /^svc_nodejs_active_\w+_total /m);
    const handles = Number(/^svc_nodejs_handles_active (\d+)$/m.exec(text)?.[1]);
    assert.ok(handles > 0, "a listening server holds at least one handle");
  });
});
