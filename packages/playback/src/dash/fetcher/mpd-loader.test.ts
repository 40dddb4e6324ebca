import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createEgress } from "@svc/core/egress";
import { loadMpd, type MpdValidators, refreshMpd } from "./mpd-loader.js";
import type { FetchContext } from "./upstream-fetch.js";

// A real loopback origin and the real egress: only 127.0.0.1 is contacted.

const mpd = (publishTime: string, segments: number) => `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="2026-01-01T00:00:00Z" publishTime="${publishTime}" minimumUpdatePeriod="PT2S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
  <Period id="p0" start="PT0S"><AdaptationSet contentType="video" mimeType="video/mp4">
    <SegmentTemplate timescale="1000" media="v-$Number$.m4s" initialization="v-init.mp4" startNumber="1">
      <SegmentTimeline><S t="0" d="2000" r="${segments - 1}"/></SegmentTimeline>
    </SegmentTemplate>
    <Representation id="v" bandwidth="500000" width="640" height="360" codecs="avc1.42c01e"/>
  </AdaptationSet></Period>
</MPD>`;

interface Answer {
  body: string;
  etag?: string;
  lastModified?: string;
}

describe("MPD refresh: conditional requests and unchanged documents are not parsed again", () => {
  let server: Server;
  let base: string;
  let answer: Answer = { body: "" };
  const seen: IncomingHttpHeaders[] = [];
  const egress = createEgress({
    allowedHosts: ["127.0.0.1"],
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
  });
  const ctx = (): FetchContext => ({
    egress,
    channelId: "c1",
    headers: { "user-agent": "mpd-test/1" },
    signal: new AbortController().signal,
  });

  before(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      const { body, etag, lastModified } = answer;
      const headers: Record<string, string> = { "content-type": "application/dash+xml" };
      if (etag) headers.etag = etag;
      if (lastModified) headers["last-modified"] = lastModified;
      const fresh =
        (etag !== undefined && req.headers["if-none-match"] === etag) ||
        (lastModified !== undefined && req.headers["if-modified-since"] === lastModified);
      if (fresh) res.writeHead(304, headers).end();
      else res.writeHead(200, headers).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await egress.close();
  });

  /** Loads once, then refreshes with what the first load returned. */
  async function loadThenRefresh(first: Answer, second: Answer) {
    answer = first;
    const loaded = await loadMpd(ctx(), `${base}/live.mpd`, 1 << 20, 5000);
    assert.ok(loaded.ok, loaded.ok ? "" : loaded.error.message);
    answer = second;
    seen.length = 0;
    const refreshed = await refreshMpd(
      ctx(),
      `${base}/live.mpd`,
      1 << 20,
      5000,
      loaded.validators as MpdValidators,
    );
    return { refreshed, sent: seen[0]! };
  }

  it("sends If-None-Match with the ETag and takes 304 as unchanged", async () => {
    const a = { body: mpd("2026-01-01T00:00:10Z", 5), etag: '"v1"' };
    const { refreshed, sent } = await loadThenRefresh(a, a);
    assert.equal(sent["if-none-match"], '"v1"');
    assert.equal(sent["user-agent"], "mpd-test/1");
    assert.ok(refreshed.ok && "unchanged" in refreshed);
  });

  it("sends If-Modified-Since with Last-Modified and takes 304 as unchanged", async () => {
    const a = {
      body: mpd("2026-01-01T00:00:10Z", 5),
      lastModified: "Thu, 01 Jan 2026 00:00:10 GMT",
    };
    const { refreshed, sent } = await loadThenRefresh(a, a);
    assert.equal(sent["if-modified-since"], "Thu, 01 Jan 2026 00:00:10 GMT");
    assert.equal(sent["if-none-match"], undefined);
    assert.ok(refreshed.ok && "unchanged" in refreshed);
  });

  it("takes the same document with only a new publishTime as unchanged (no validators)", async () => {
    const { refreshed, sent } = await loadThenRefresh(
      { body: mpd("2026-01-01T00:00:10Z", 5) },
      { body: mpd("2026-01-01T00:00:11Z", 5) },
    );
    assert.equal(sent["if-none-match"], undefined);
    assert.equal(sent["if-modified-since"], undefined);
    assert.ok(refreshed.ok && "unchanged" in refreshed);
  });

  it("parses a changed document (a new segment) and returns its model", async () => {
    const { refreshed } = await loadThenRefresh(
      { body: mpd("2026-01-01T00:00:10Z", 5), etag: '"v1"' },
      { body: mpd("2026-01-01T00:00:12Z", 6), etag: '"v2"' },
    );
    assert.ok(refreshed.ok && !("unchanged" in refreshed));
    const s = refreshed.mpd.periods[0]?.adaptationSets[0]?.representations[0];
    assert.ok(s?.addressing.kind === "template");
    assert.equal(refreshed.validators.etag, '"v2"');
  });

  it("still fails as a value on an origin error", async () => {
    answer = { body: mpd("2026-01-01T00:00:10Z", 5) };
    const loaded = await loadMpd(ctx(), `${base}/live.mpd`, 1 << 20, 5000);
    assert.ok(loaded.ok);
    const r = await refreshMpd(ctx(), `${base}/live.mpd`, 64, 5000, loaded.validators);
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.error.message, /^MPD: body exceeds 64 bytes/);
  });
});
