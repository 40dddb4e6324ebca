import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

// Issue 12, native DASH engine: template widths (2), absurd timelines and refused hosts
// fail fast (3), secrets stay with the source origin (4), last_error scrubbed (8).
// Black-box against the built full binary (its /v1/status shows last_error).

const MPD_TYPE = "application/dash+xml";

/** A live MPD with one video Representation; `template` is its SegmentTemplate. */
function liveMpd(template: string, extra = "", ast = "1970-01-01T00:00:00Z"): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="${ast}"
     minimumUpdatePeriod="PT2S" minBufferTime="PT2S" timeShiftBufferDepth="PT30S">
  ${extra}
  <Period id="p0" start="PT0S">
    <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f">
      ${template}
      <Representation id="v" bandwidth="500000" width="640" height="360"/>
    </AdaptationSet>
  </Period>
</MPD>`;
}

const INIT = 'initialization="$RepresentationID$/init.mp4"';
const MPDS: Record<string, string> = {
  "/wide.mpd": liveMpd(
    `<SegmentTemplate timescale="1000" duration="2000" media="$RepresentationID$/$Number%0100000000d$.m4s" ${INIT}/>`,
  ),
  "/r12.mpd": liveMpd(
    `<SegmentTemplate timescale="1000" media="$RepresentationID$/$Time$.m4s" ${INIT}><SegmentTimeline><S t="0" d="2000" r="1000000000000"/></SegmentTimeline></SegmentTemplate>`,
  ),
  "/ticks.mpd": liveMpd(
    `<SegmentTemplate timescale="90000" media="$RepresentationID$/$Time$.m4s" ${INIT}><SegmentTimeline><S t="0" d="1" r="-1"/></SegmentTimeline></SegmentTemplate>`,
  ),
  "/nanos.mpd": liveMpd(
    `<SegmentTemplate timescale="1000000000" duration="1" media="$RepresentationID$/$Number$.m4s" ${INIT}/>`,
  ),
  "/bad-base.mpd": liveMpd(
    `<BaseURL>http://[::1</BaseURL><SegmentTemplate timescale="1000" duration="2000" media="$Number$.m4s" ${INIT}/>`,
  ),
};
const SECRET_HEADERS = {
  Authorization: "Bearer dash-secret-1",
  "X-Api-Key": "dash-secret-2",
  "X-Plain": "visible",
};

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1]) / 1024;
}

describe("native DASH engine: hostile MPDs fail fast, secrets stay home (full binary)", () => {
  /** The channels' source origin. */
  let a: Origin;
  /** Another allow-listed origin (another port) that MPD BaseURL and UTCTiming name. */
  let b: Origin;
  /** Loopback but not allow-listed: refused by the egress guard, never contacted. */
  let refused: Origin;
  let gw: GatewayProcess;
  let admin: string;

  before(async () => {
    refused = await startOrigin({ host: "127.0.0.2" });
    b = await startOrigin({
      routes: (req, res) => {
        if (req.url === "/time") {
          res.writeHead(200, { "content-type": "text/plain" });
          res.end(new Date().toISOString());
          return true;
        }
        return false;
      },
    });
    const mpds: Record<string, string> = {
      ...MPDS,
      "/refused-base.mpd": liveMpd(
        `<BaseURL>${refused.url}/media/</BaseURL><SegmentTemplate timescale="1000" duration="2000" media="$Number$.m4s" ${INIT}/>`,
        "",
        new Date(Date.now() - 60_000).toISOString(),
      ),
      "/cross.mpd": liveMpd(
        `<BaseURL>${b.url}/media/</BaseURL><SegmentTemplate timescale="1000" duration="2000" media="$Number$.m4s" ${INIT}/>`,
        `<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-iso:2014" value="${b.url}/time"/>`,
        new Date(Date.now() - 60_000).toISOString(),
      ),
    };
    a = await startOrigin({
      routes: (req, res) => {
        if (req.url === "/stall.mpd") return true; // never answers: the session stays starting
        const body = mpds[(req.url ?? "").split("?")[0]!];
        if (body === undefined) return false;
        res.writeHead(200, { "content-type": MPD_TYPE });
        res.end(body);
        return true;
      },
    });
    const dash = (id: string, path: string) => ({
      id,
      title: id,
      ingress: "dash",
      engine: "native",
      source_url: `${a.url}${path}`,
      headers: SECRET_HEADERS,
      user_agent: "dash-hardening/1",
    });
    gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      security: {
        allowed_hosts: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`],
        play_require_auth: false,
      },
      channels: [
        dash("wide", "/wide.mpd"),
        dash("r12", "/r12.mpd"),
        dash("ticks", "/ticks.mpd"),
        dash("nanos", "/nanos.mpd"),
        dash("refused-base", "/refused-base.mpd"),
        dash("cross", "/cross.mpd"),
        dash("scrub", "/bad-base.mpd?token=query-secret-9&sig=abc"),
        dash("stall", "/stall.mpd"),
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    await Promise.all([a?.close(), b?.close(), refused?.close()]);
  });

  async function lastError(id: string): Promise<string | null> {
    const r = await requestJson(`${gw.url}/v1/status`, { token: admin });
    assert.equal(r.status, 200);
    const s = r.body.sessions.find((x: { channel_id: string }) => x.channel_id === id);
    return s?.last_error ?? null;
  }

  /** Plays index.m3u8 until the session has failed; every answer must come at once. */
  async function failsFast(id: string, cause: RegExp): Promise<string> {
    const deadline = Date.now() + 8_000;
    for (;;) {
      const t0 = Date.now();
      const r = await requestJson(`${gw.url}/v1/play/${id}/index.m3u8`);
      const took = Date.now() - t0;
      assert.ok(took < 5_000, `${id}: index.m3u8 parked the player for ${took} ms`);
      assert.ok([502, 503].includes(r.status), `${id}: ${r.status} ${r.text}`);
      assert.ok(["upstream_error", "not_ready"].includes(r.body.error.code));
      const err = await lastError(id);
      if (err !== null && cause.test(err)) return err;
      assert.ok(Date.now() < deadline, `${id}: last_error is ${err}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  it("refuses a $Number%0<width>d$ wider than 32, naming the attribute (item 2)", async () => {
    await failsFast("wide", /SegmentTemplate@media: format width 100000000 of \$Number\$/);
  });

  it("fails absurd timelines within seconds, /healthz answering and memory bounded (item 3)", async () => {
    const started = Date.now();
    const pending = Promise.all([
      failsFast("r12", /declares more than 1000000 segments/),
      failsFast("ticks", /S\[0\]@d=1 at timescale 90000 .* below the 50 ms minimum/),
      failsFast("nanos", /SegmentTemplate@duration=1 at timescale 1000000000 .* below the 50 ms/),
    ]);
    let done = false;
    void pending.finally(() => {
      done = true;
    });
    while (!done) {
      const t0 = Date.now();
      const h = await requestJson(`${gw.url}/healthz`);
      assert.equal(h.status, 200);
      assert.ok(Date.now() - t0 < 1_000, "healthz was held up");
      await new Promise((res) => setTimeout(res, 100));
    }
    await pending;
    assert.ok(Date.now() - started < 10_000);
    // Several restarts later (backoff), the process has not grown.
    await new Promise((res) => setTimeout(res, 2_000));
    assert.ok(rssMb(gw.proc.pid!) < 400, `RSS ${rssMb(gw.proc.pid!)} MB`);
  });

  it("fails a source whose BaseURL host the egress guard refuses, naming it (item 3)", async () => {
    // Issue 30 item 10: answered 403 forbidden at once (before: 503, after the pumps tried).
    const t0 = Date.now();
    const r = await requestJson(`${gw.url}/v1/play/refused-base/index.m3u8`);
    assert.ok(Date.now() - t0 < 5_000);
    assert.equal(r.status, 403, r.text);
    assert.equal(r.body.error.code, "forbidden");
    const err = String(await lastError("refused-base"));
    assert.match(err, /the egress guard refused 127\.0\.0\.2:\d+/);
    assert.match(err, /security\.allowed_hosts/);
    assert.equal(refused.hits.length, 0);
  });

  it("sends the channel's secrets to the MPD origin only, not to BaseURL or UTCTiming origins (item 4)", async () => {
    await requestJson(`${gw.url}/v1/play/cross/index.m3u8`);
    const deadline = Date.now() + 8_000;
    while (
      !b.hits.some((h) => h.path === "/time") ||
      !b.hits.some((h) => h.path.startsWith("/media/"))
    ) {
      assert.ok(Date.now() < deadline, `b saw ${b.hits.map((h) => h.path).join(", ")}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    const mpd = a.hits.find((h) => h.path === "/cross.mpd")!;
    assert.equal(mpd.headers.authorization, SECRET_HEADERS.Authorization);
    assert.equal(mpd.headers["x-api-key"], SECRET_HEADERS["X-Api-Key"]);
    for (const hit of b.hits) {
      assert.equal(hit.headers.authorization, undefined, hit.path);
      assert.equal(hit.headers["x-api-key"], undefined, hit.path);
      assert.equal(hit.headers["x-plain"], "visible", hit.path);
      assert.equal(hit.headers["user-agent"], "dash-hardening/1", hit.path);
    }
  });

  it("scrubs the MPD URL's query out of last_error (item 8)", async () => {
    const err = await failsFast("scrub", /BaseURL .* cannot be resolved/);
    assert.doesNotMatch(err, /query-secret-9|sig=abc/);
    assert.match(err, /bad-base\.mpd\?\[redacted\]/);
  });

  it("caps the requests one client may have parked, answering 429 at once past it (item 8)", async () => {
    const url = `${gw.url}/v1/play/stall/index.m3u8`;
    const aborts = Array.from({ length: 32 }, () => new AbortController());
    const parked = aborts.map((ac) =>
      fetch(url, { signal: ac.signal }).then(
        (r) => r.status,
        () => "aborted",
      ),
    );
    await new Promise((res) => setTimeout(res, 1_000));
    const t0 = Date.now();
    const over = await requestJson(url);
    assert.ok(Date.now() - t0 < 2_000);
    assert.equal(over.status, 429);
    assert.equal(over.headers.get("retry-after"), "1");
    assert.deepEqual(over.body, {
      error: {
        code: "too_many_requests",
        message: "too many waiting requests from this client (at most 32)",
      },
    });
    // Clients that go away free their places.
    for (const ac of aborts) ac.abort();
    assert.ok((await Promise.all(parked)).every((s) => s === "aborted"));
    await new Promise((res) => setTimeout(res, 500));
    const ac = new AbortController();
    const again = fetch(url, { signal: ac.signal }).then(
      (r) => r.status,
      () => "parked",
    );
    await new Promise((res) => setTimeout(res, 500));
    ac.abort();
    assert.equal(await again, "parked");
  });
});
