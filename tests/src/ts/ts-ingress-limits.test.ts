import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { CHROMIUM, launchChromium, playFor, startHlsJsPage } from "../harness/hlsjs-page.js";
import { login, requestJson } from "../harness/http-client.js";
import { startTsLiveOrigin, type TsLiveOrigin } from "../harness/ts-live-origin.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { readFor } from "./stream-ts-checks.js";
import { entries, get, getMedia, sleep } from "./ts-playlists.js";

// Issue 33: one upstream connection per channel whatever the viewers, and the provider's
// connection limit (extensions "Connection limits"). One H.264 + AAC encoder for the suite.
let origin: TsLiveOrigin;
before(async () => {
  origin = await startTsLiveOrigin();
});
after(async () => {
  await origin?.stop();
});

describe("ingress: ts, viewers and the upstream limit (full binary)", () => {
  let gw: GatewayProcess;
  let admin: string;
  const ch = (id: string, extra: Record<string, unknown>) => ({
    id,
    title: id,
    ingress: "ts",
    user_agent: `lim-agent-${id}`,
    ...extra,
  });

  before(async () => {
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      // Idle stop far away: a session stopped below was stopped for the limit.
      media: { idle_stop_sec: 300 },
      extensions: { ts_output: true },
      upstreams: [
        { id: "prov", base_url: origin.url, max_connections: 1 },
        { id: "open", base_url: origin.url },
      ],
      channels: [
        ch("many", { source_url: `${origin.url}/live.ts` }),
        ch("pa", { upstream: "prov", path: "/live.ts" }),
        ch("pb", { upstream: "prov", path: "/live.ts" }),
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
  });

  it("50 stream.ts viewers and 2 HLS viewers make exactly one upstream connection", async () => {
    const stream = `${gw.url}/v1/play/many/stream.ts`;
    // The channel is started by its first viewer: the others join the running session
    // (50 requests waiting for a start would pass the per-client limit of parked requests).
    assert.equal((await getMedia(`${gw.url}/v1/play/many/index.m3u8`)).status, 200);
    const hls = [0, 1].map(async () => {
      let segments = 0;
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const media = await getMedia(`${gw.url}/v1/play/many/index.m3u8`);
        const last = entries(media.text).at(-1);
        if (media.status === 200 && last !== undefined) {
          const seg = await get(last.uri);
          if (seg.status === 200 && seg.headers.get("content-type") === "video/mp2t") segments += 1;
        }
        await sleep(1000);
      }
      return segments;
    });
    const viewers = Array.from({ length: 50 }, () => readFor(stream, 10_000));
    const [got, segments] = await Promise.all([Promise.all(viewers), Promise.all(hls)]);
    for (const v of got) {
      assert.equal(v.status, 200);
      assert.ok(v.bytes.length > 188 * 100, `a viewer read ${v.bytes.length} bytes`);
    }
    for (const n of segments) assert.ok(n >= 3, `${n} segments`);
    assert.equal(origin.count("/live.ts", "lim-agent-many").total, 1);
  });

  it("refuses a second channel of a full upstream with 503 naming it and its limit", async () => {
    const a = await getMedia(`${gw.url}/v1/play/pa/index.m3u8`);
    assert.equal(a.status, 200, a.text);
    const b = await requestJson(`${gw.url}/v1/play/pb/index.m3u8`);
    assert.equal(b.status, 503, b.text);
    assert.equal(b.body.error.code, "unavailable");
    assert.match(b.body.error.message, /upstream "prov"/);
    assert.match(b.body.error.message, /limit of 1 connection/);
    assert.equal(origin.count("/live.ts", "lim-agent-pb").total, 0);
    const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
    assert.equal(status.status, 200);
    assert.deepEqual(status.body.upstreams, [
      { id: "prov", connections: 1, max_connections: 1 },
      { id: "open", connections: 0, max_connections: null },
    ]);
  });

  it("stops the channel with no viewer left to start another of the same upstream", async () => {
    // pa had its last request in the test above; nobody watches it any more.
    const b = await until(
      "pa to count as without viewers",
      async () => {
        const r = await get(`${gw.url}/v1/play/pb/index.m3u8`);
        if (r.status === 503) {
          await sleep(1000);
          return undefined;
        }
        return r;
      },
      60_000,
    );
    assert.equal(b.status, 200, b.text);
    assert.equal(origin.count("/live.ts", "lim-agent-pb").total, 1);
    await until("pa's connection to close", () =>
      origin.count("/live.ts", "lim-agent-pa").open === 0 ? true : undefined,
    );
    const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
    const ids = status.body.sessions.map((s: { channel_id: string }) => s.channel_id);
    assert.ok(ids.includes("pb") && !ids.includes("pa"), ids.join(","));
    assert.deepEqual(status.body.upstreams[0], { id: "prov", connections: 1, max_connections: 1 });
  });
});

describe("hls.js in headless Chromium plays a ts channel", {
  skip: existsSync(CHROMIUM) ? false : "chromium not installed",
}, () => {
  let gw: GatewayProcess;
  let page: Awaited<ReturnType<typeof startHlsJsPage>>;
  let browser: Browser;

  before(async () => {
    page = await startHlsJsPage();
    gw = await startGateway("lite", {
      auth: authSection(),
      security: {
        allowed_hosts: ["127.0.0.1"],
        play_require_auth: false,
        cors_origins: [page.origin],
      },
      channels: [
        {
          id: "js",
          title: "js",
          ingress: "ts",
          source_url: `${origin.url}/live.ts`,
          user_agent: "lim-agent-js",
        },
      ],
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    await page?.close();
  });

  it("advances currentTime by 10 s with no fatal error", { timeout: 180_000 }, async () => {
    const tab = await browser.newPage();
    const { end } = await playFor(tab, page.origin, `${gw.url}/v1/play/js/index.m3u8`, 10);
    assert.equal(end.fatal, null);
    assert.equal(origin.count("/live.ts", "lim-agent-js").total, 1);
  });
});
