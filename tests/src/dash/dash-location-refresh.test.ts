import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

// Issue 30 item 10, on refresh: a playing channel whose MPD starts naming a Location the
// egress guard refuses (127.0.0.2, not allow-listed) used to keep refreshing there until
// five refreshes had failed (10 s at PT2S); the packager now gives up at the first one,
// and the restarted session is refused at its start check (403 at once).

/** Five refreshes of PT2S would take 10 s, plus the 1 s restart backoff. */
const WITHIN_MS = 8_000;

describe("DASH: a refreshed MPD naming a refused Location (full binary)", () => {
  let src: DashLiveSource;
  let refused: Origin;
  let gw: GatewayProcess;
  let admin: string;
  let injectLocation = false;
  const wrapper = createServer((req, res) => {
    if (req.url !== "/live.mpd") return void res.writeHead(404).end();
    void fetch(src.mpdUrl)
      .then((r) => r.text())
      .then(
        (body) => {
          // Served from another origin: the segments stay where the live source has them.
          const extra = `<BaseURL>${src.mpdUrl.replace(/[^/]*$/, "")}</BaseURL>${
            injectLocation ? `<Location>${refused.url}/live.mpd</Location>` : ""
          }`;
          res.writeHead(200, { "content-type": "application/dash+xml" });
          res.end(body.replace(/(<MPD\b[^>]*>)/, `$1${extra}`));
        },
        () => res.writeHead(502).end(),
      );
  });

  before(async () => {
    src = await startDashLiveSource({ heights: [360], languages: ["eng"] });
    await src.waitForSegments(3);
    refused = await startOrigin({ host: "127.0.0.2" });
    wrapper.listen(0, "127.0.0.1");
    await new Promise((r) => wrapper.once("listening", r));
    const { port } = wrapper.address() as AddressInfo;
    gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [
        {
          id: "moved",
          title: "moved",
          ingress: "dash",
          engine: "native",
          source_url: `http://127.0.0.1:${port}/live.mpd`,
        },
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    wrapper.closeAllConnections();
    wrapper.close();
    await Promise.all([src?.stop(), refused?.close()]);
  });

  it("stops at the first refresh that names it, then answers 403 forbidden", async (t) => {
    const first = await requestJson(`${gw.url}/v1/play/moved/index.m3u8`);
    assert.equal(first.status, 200, first.text);
    injectLocation = true;
    const t0 = Date.now();
    for (;;) {
      const r = await requestJson(`${gw.url}/v1/play/moved/index.m3u8`);
      if (r.status === 403) {
        assert.equal(r.body.error.code, "forbidden");
        break;
      }
      assert.ok([200, 503].includes(r.status), `${r.status} ${r.text}`);
      assert.ok(Date.now() - t0 < 30_000, "never refused");
      await new Promise((res) => setTimeout(res, 200));
    }
    const took = Date.now() - t0;
    t.diagnostic(`403 ${took} ms after the MPD named the refused Location`);
    assert.ok(took < WITHIN_MS, `refused after ${took} ms`);
    const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
    const s = status.body.sessions.find((x: { channel_id: string }) => x.channel_id === "moved");
    assert.match(String(s.last_error), /the egress guard refused 127\.0\.0\.2:\d+/);
    assert.deepEqual(
      refused.hits.map((h) => h.path),
      [],
    );
  });
});
