import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

// Issue 12 item 3 (compatibility engine): a source ffmpeg cannot play ends in a clear error
// at once, never in a play request parked for the 30 s start wait. Loopback only: the
// allow-listed origin is 127.0.0.1, the refused segment host 127.0.0.2.

/** A static MPD whose segments live on `base` (an absolute BaseURL). */
function mpdWithBase(base: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT20S"
     minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
  <BaseURL>${base}</BaseURL>
  <Period id="0" start="PT0S">
    <AdaptationSet mimeType="video/mp4" contentType="video" segmentAlignment="true">
      <Representation id="v" bandwidth="300000" codecs="avc1.64000d" width="320" height="180">
        <SegmentTemplate timescale="1" duration="2" startNumber="1"
                         initialization="init-v.mp4" media="seg-v-$Number$.m4s"/>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>`;
}

describe("ffmpeg compatibility engine: failing sources answer at once", () => {
  let gw: GatewayProcess;
  let admin: string;
  let refusedHits = 0;
  const refused = createServer((_req, res) => res.end("must not be reached"));
  refused.on("connection", () => {
    refusedHits += 1;
  });
  const origin = createServer((req, res) => {
    if (req.url === "/refused.mpd") {
      const { port } = refused.address() as AddressInfo;
      res.writeHead(200, { "content-type": "application/dash+xml" });
      return void res.end(mpdWithBase(`http://127.0.0.2:${port}/`));
    }
    if (req.url === "/missing.mpd") {
      const { port } = origin.address() as AddressInfo;
      res.writeHead(200, { "content-type": "application/dash+xml" });
      return void res.end(mpdWithBase(`http://127.0.0.1:${port}/gone/`));
    }
    res.writeHead(404).end();
  });

  before(async () => {
    refused.listen(0, "127.0.0.2");
    origin.listen(0, "127.0.0.1");
    await Promise.all([once(refused, "listening"), once(origin, "listening")]);
    const { port } = origin.address() as AddressInfo;
    const channel = (id: string, path: string) => ({
      id,
      title: id,
      ingress: "dash",
      engine: "ffmpeg",
      source_url: `http://127.0.0.1:${port}${path}`,
    });
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [channel("refused", "/refused.mpd"), channel("missing", "/missing.mpd")],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    refused.close();
    origin.closeAllConnections();
    origin.close();
  });

  // Issue 30 item 10: a BaseURL the guard refuses is found before ffmpeg starts (403
  // forbidden); a 404 only shows once ffmpeg ran (503 not_ready, retried).
  for (const [id, want, code, cause] of [
    [
      "refused",
      403,
      "forbidden",
      /the egress guard refused 127\.0\.0\.2:\d+ \(target address is loopback\)/,
    ],
    ["missing", 503, "not_ready", /404 Not Found/],
  ] as const) {
    it(`${id}: index.m3u8 answers ${want} ${code} within seconds, last_error names the cause`, async () => {
      const t0 = Date.now();
      const r = await requestJson(`${gw.url}/v1/play/${id}/index.m3u8`);
      const took = Date.now() - t0;
      assert.equal(r.status, want, JSON.stringify(r.body));
      assert.equal(r.body.error.code, code);
      assert.ok(took < 10_000, `answered after ${took} ms`);
      const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
      const s = (status.body.sessions as { channel_id: string; last_error: string | null }[]).find(
        (x) => x.channel_id === id,
      );
      assert.match(String(s?.last_error), cause);
      // While the session waits out its restart backoff, a player is told so at once.
      const t1 = Date.now();
      const again = await requestJson(`${gw.url}/v1/play/${id}/index.m3u8`);
      assert.equal(again.status, want);
      assert.ok(Date.now() - t1 < 10_000);
    });
  }

  it("never reached the refused host", () => {
    assert.equal(refusedHits, 0);
  });
});
