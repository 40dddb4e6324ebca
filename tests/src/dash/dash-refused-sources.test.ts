import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

// Issue 30 item 10: a DASH source whose MPD names an address the egress guard refuses
// (BaseURL, SegmentTemplate, Location), or that can never yield a segment, answers
// index.m3u8 with the cause (403 forbidden, 502 upstream_error) at once and starts
// nothing that waits for media: no init or segment fetch, no ffmpeg fallback. The
// refused side is loopback outside security.allowed_hosts (127.0.0.2, `localhost`)
// and is never contacted.

/** Generous for a loaded machine; the Location case used to park play requests 30 s. */
const ANSWER_WITHIN_MS = 8_000;

/** A live MPD (started a minute ago) with one Representation of `contentType`. */
function liveMpd(o: { head?: string; template?: string; contentType?: string } = {}): string {
  const template =
    o.template ??
    '<SegmentTemplate timescale="1000" duration="2000" media="$Number$.m4s" initialization="init.mp4"/>';
  const text = o.contentType === "text";
  return `<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic"
     availabilityStartTime="${new Date(Date.now() - 60_000).toISOString()}"
     minimumUpdatePeriod="PT2S" minBufferTime="PT2S" timeShiftBufferDepth="PT30S">
  ${o.head ?? ""}
  <Period id="p0" start="PT0S">
    <AdaptationSet contentType="${o.contentType ?? "video"}"
        mimeType="${text ? "application/mp4" : "video/mp4"}" codecs="${text ? "stpp" : "avc1.64001f"}">
      ${template}
      <Representation id="v" bandwidth="500000" width="640" height="360"/>
    </AdaptationSet>
  </Period>
</MPD>`;
}

describe("DASH sources naming refused addresses or no segment fail fast (full binary)", () => {
  let a: Origin;
  /** Loopback but not allow-listed: refused by the egress guard, never contacted. */
  let refused: Origin;
  let gw: GatewayProcess;
  let admin: string;
  const cases: {
    id: string;
    mpd: () => string;
    status: number;
    code: string;
    cause: RegExp;
  }[] = [
    {
      id: "base-url",
      mpd: () => liveMpd({ head: `<BaseURL>${refused.url}/media/</BaseURL>` }),
      status: 403,
      code: "forbidden",
      cause: /the egress guard refused 127\.0\.0\.2:\d+ \(target address is loopback\)/,
    },
    {
      id: "template",
      mpd: () =>
        liveMpd({
          template: `<SegmentTemplate timescale="1000" duration="2000" media="${refused.url}/v/$Number$.m4s" initialization="${refused.url}/v/init.mp4"/>`,
        }),
      status: 403,
      code: "forbidden",
      cause: /the egress guard refused 127\.0\.0\.2:\d+/,
    },
    {
      id: "location",
      // Its segments are on the allowed origin (which has none): without the check, the
      // session waited for them while every MPD refresh went to the refused Location.
      mpd: () => liveMpd({ head: `<Location>${refused.url}/live.mpd</Location>` }),
      status: 403,
      code: "forbidden",
      cause: /the egress guard refused 127\.0\.0\.2:\d+/,
    },
    {
      id: "localhost",
      mpd: () => liveMpd({ head: `<BaseURL>http://localhost:${refused.port}/media/</BaseURL>` }),
      status: 403,
      code: "forbidden",
      cause: /the egress guard refused localhost:\d+ \(target address is loopback\)/,
    },
    {
      id: "no-media",
      mpd: () =>
        liveMpd({
          template: '<SegmentTemplate timescale="1000" duration="2000" initialization="init.mp4"/>',
        }),
      status: 502,
      code: "upstream_error",
      cause: /SegmentTemplate@media is missing/,
    },
    {
      id: "subtitles-only",
      mpd: () => liveMpd({ contentType: "text" }),
      status: 502,
      code: "upstream_error",
      cause: /Period p0 has no video or audio Representation/,
    },
  ];

  before(async () => {
    refused = await startOrigin({ host: "127.0.0.2" });
    a = await startOrigin({
      routes: (req, res) => {
        const c = cases.find((x) => req.url === `/${x.id}.mpd`);
        if (c === undefined) return false;
        res.writeHead(200, { "content-type": "application/dash+xml" });
        res.end(c.mpd());
        return true;
      },
    });
    gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      security: { allowed_hosts: [`127.0.0.1:${a.port}`], play_require_auth: false },
      // engine auto (the default): what the native engine refuses may fall back to ffmpeg.
      channels: cases.map((c) => ({
        id: c.id,
        title: c.id,
        ingress: "dash",
        source_url: `${a.url}/${c.id}.mpd`,
      })),
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    await Promise.all([a?.close(), refused?.close()]);
  });

  for (const c of cases) {
    it(`${c.id}: index.m3u8 answers ${c.status} ${c.code} at once, naming the cause in last_error`, async (t) => {
      for (const attempt of ["first", "again"]) {
        const t0 = Date.now();
        const r = await requestJson(`${gw.url}/v1/play/${c.id}/index.m3u8`);
        const took = Date.now() - t0;
        assert.equal(r.status, c.status, `${attempt}: ${r.text}`);
        assert.deepEqual(Object.keys(r.body), ["error"]);
        assert.deepEqual(Object.keys(r.body.error), ["code", "message"]);
        assert.equal(r.body.error.code, c.code);
        assert.doesNotMatch(r.body.error.message, /127\.0\.0\.|localhost/, "no host for players");
        assert.ok(took < ANSWER_WITHIN_MS, `${attempt} answer took ${took} ms`);
        t.diagnostic(`${attempt} answer: ${r.status} in ${took} ms`);
      }
      const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
      const s = status.body.sessions.find((x: { channel_id: string }) => x.channel_id === c.id);
      assert.equal(s.state, "failed");
      assert.match(String(s.last_error), c.cause);
      // Nothing waits for media: the engine did not fall back to ffmpeg and holds no packager.
      assert.equal(s.engine, "native");
      assert.equal(s.fallback_reason, null);
      assert.equal(s.packager, null);
      const fetched = a.hits.filter((h) => !h.path.endsWith(".mpd")).map((h) => h.path);
      assert.deepEqual(fetched, [], "no init or segment was fetched");
    });
  }

  it("never contacted the refused address", () => {
    assert.deepEqual(
      refused.hits.map((h) => h.path),
      [],
    );
  });
});
