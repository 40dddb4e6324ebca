import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Channel } from "@svc/core/catalog";
import { createEgress, type Egress } from "@svc/core/egress";
import { channel as testChannel } from "@svc/test-kits/channel";
import {
  audio,
  KID_A,
  mpd,
  period,
  protection,
  SEGMENT_LIST,
  video,
} from "../dash/inspection/fixtures/inspection-mpds.js";
import { probeSource, type SourceProbeOptions } from "./source-probe.js";

// Loopback only: the allow-listed origin listens on 127.0.0.1, the refused one on 127.0.0.2.
const SECRET = "Bearer upstream-secret-7f3a";
const CLEAR = mpd(period("p0", video({}) + audio({})));
const LISTED = mpd(period("p0", video({ segments: SEGMENT_LIST }) + audio({})));
const ENCRYPTED = mpd(
  period("p0", video({ cp: protection("cenc", KID_A) }) + audio({ cp: protection("cenc", KID_A) })),
);
const KEY = "00112233445566778899aabbccddeeff";
const MAX = 4096;

function channel(ingress: "hls" | "dash", extra: Partial<Channel> = {}): Channel {
  return testChannel("probe-me", {
    title: "Probe me",
    ingress,
    source_url: "",
    headers: { Authorization: SECRET, "X-Plain": "visible" },
    user_agent: "probe-agent/1",
    ...extra,
  });
}

interface Hit {
  url: string;
  headers: IncomingHttpHeaders;
}

async function listen(host: string, server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, host, r));
  return (server.address() as AddressInfo).port;
}

describe("probeSource", () => {
  let origin: Server;
  let refused: Server;
  let base: string;
  let refusedBase: string;
  let egress: Egress;
  let closedPortUrl: string;
  const hits: Hit[] = [];
  let refusedHits = 0;
  let oversizeClosed = false;

  const opts = (extra: Partial<SourceProbeOptions> = {}): SourceProbeOptions => ({
    egress,
    maxBodyBytes: MAX,
    globalKeys: {},
    ...extra,
  });

  before(async () => {
    origin = createServer((req, res) => {
      const url = req.url ?? "/";
      hits.push({ url, headers: req.headers });
      const path = url.split("?")[0];
      const mpdTypes = { "content-type": "application/dash+xml" };
      if (path === "/redirect") {
        res.writeHead(302, { location: "/live/index.m3u8?sig=abc#frag" }).end();
      } else if (path === "/live/index.m3u8") {
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
        res.end("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n");
      } else if (path === "/to-refused") {
        res.writeHead(307, { location: `${refusedBase}/x.m3u8` }).end();
      } else if (path === "/clear.mpd") {
        res.writeHead(200, mpdTypes).end(CLEAR);
      } else if (path === "/list.mpd") {
        res.writeHead(200, mpdTypes).end(LISTED);
      } else if (path === "/enc.mpd") {
        res.writeHead(200, mpdTypes).end(ENCRYPTED);
      } else if (path === "/garbage.mpd") {
        res.writeHead(200, mpdTypes).end("this is not XML");
      } else if (path === "/big.mpd") {
        res.on("close", () => {
          oversizeClosed = !res.writableFinished;
        });
        // Far more than MAX, written slowly enough that the reader can hang up first.
        res.writeHead(200, mpdTypes);
        res.write(`<MPD>${" ".repeat(MAX)}`);
        const timer = setInterval(() => res.write(" ".repeat(1024)), 20);
        res.on("close", () => clearInterval(timer));
      } else if (path === "/stall.mpd") {
        // never answers
      } else {
        res.writeHead(404, { "content-type": "text/plain" }).end("no such thing");
      }
    });
    base = `http://127.0.0.1:${await listen("127.0.0.1", origin)}`;
    refused = createServer((_req, res) => {
      refusedHits += 1;
      res.end("must not be reached");
    });
    refusedBase = `http://127.0.0.2:${await listen("127.0.0.2", refused)}`;
    // A port that was just free: nothing listens on it.
    const spare = createServer();
    closedPortUrl = `http://127.0.0.1:${await listen("127.0.0.1", spare)}/gone.m3u8`;
    await new Promise<void>((r) => spare.close(() => r()));
    egress = createEgress({
      allowedHosts: ["127.0.0.1"],
      timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
    });
  });
  after(async () => {
    await egress.close();
    for (const s of [origin, refused]) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it("HLS: status, content type, final URL after a redirect, reduced for the report", async () => {
    const from = hits.length;
    const url = `${base.replace("://", "://user:pw@")}/redirect?token=query-secret#frag`;
    const probe = await hls(channel("hls"), url, opts());
    assert.equal(probe.refusal, undefined);
    const { dur_ms, ...rest } = probe.result;
    assert.deepEqual(rest, {
      ok: true,
      status: 200,
      content_type: "application/vnd.apple.mpegurl",
      final_url: `${base}/live/index.m3u8`,
    });
    assert.ok(Number.isInteger(dur_ms) && dur_ms >= 0);
    // The channel's headers and user agent went to the origin, on both hops.
    const seen = hits.slice(from);
    assert.deepEqual(
      seen.map((h) => h.url),
      ["/redirect?token=query-secret", "/live/index.m3u8?sig=abc"],
    );
    for (const h of seen) {
      assert.equal(h.headers.authorization, SECRET);
      assert.equal(h.headers["x-plain"], "visible");
      assert.equal(h.headers["user-agent"], "probe-agent/1");
    }
  });

  it("HLS: an upstream 404 is a result with ok false and the status", async () => {
    const probe = await hls(channel("hls"), `${base}/missing.m3u8?k=1`, opts());
    assert.deepEqual(
      { ...probe.result, dur_ms: 0 },
      {
        ok: false,
        status: 404,
        content_type: "text/plain",
        final_url: `${base}/missing.m3u8`,
        dur_ms: 0,
      },
    );
  });

  it("refused target: no connection, refusal set, reason names the guard", async () => {
    for (const url of [`${refusedBase}/x.m3u8?token=q`, `${base}/to-refused`]) {
      const probe = await hls(channel("hls"), url, opts());
      assert.match(
        probe.refusal ?? "",
        /egress guard refused the source \(target address is loopback\)/,
      );
      assert.equal(probe.result.ok, false);
      assert.equal(probe.result.error, probe.refusal);
      assert.equal(probe.result.final_url, urlWithoutQuery(url));
    }
    const mpdProbe = await dash(channel("dash"), `${refusedBase}/a.mpd`, opts());
    assert.deepEqual([mpdProbe.result.ok, mpdProbe.result.inspection], [false, null]);
    assert.match(mpdProbe.result.error ?? "", /target address is loopback/);
    assert.equal(mpdProbe.refusal, mpdProbe.result.error);
    assert.equal(refusedHits, 0);
  });

  it("network failure and timeout give ok false with a safe reason", async () => {
    const down = await hls(channel("hls"), `${closedPortUrl}?token=zz`, opts());
    assert.equal(down.refusal, undefined);
    assert.deepEqual([down.result.ok, down.result.status], [false, 0]);
    assert.equal(down.result.error, "upstream connection failed (ECONNREFUSED)");
    const slow = await dash(channel("dash"), `${base}/stall.mpd`, opts({ timeoutMs: 300 }));
    assert.deepEqual([slow.result.ok, slow.result.error], [false, "probe timed out after 300 ms"]);
    assert.ok(slow.result.dur_ms >= 290, String(slow.result.dur_ms));
  });

  it("DASH clear MPD: inspection says native", async () => {
    const probe = await dash(channel("dash"), `${base}/clear.mpd`, opts());
    assert.deepEqual(Object.keys(probe.result), ["ok", "dur_ms", "inspection"]);
    assert.deepEqual(probe.result.inspection, {
      native_supported: true,
      suggested_engine: "native",
      reason: null,
      encrypted: false,
      kids: [],
    });
    assert.equal(hits.at(-1)?.headers.authorization, SECRET);
  });

  it("DASH SegmentList MPD: ffmpeg, with the reason", async () => {
    const probe = await dash(channel("dash"), `${base}/list.mpd`, opts());
    assert.equal(probe.result.ok, true);
    assert.equal(probe.result.inspection?.suggested_engine, "ffmpeg");
    assert.match(probe.result.inspection?.reason ?? "", /uses SegmentList addressing/);
  });

  it("DASH encrypted: KIDs from media.keys and from the channel's keys count, none fails", async () => {
    const url = `${base}/enc.mpd`;
    const global = await dash(channel("dash"), url, opts({ globalKeys: { [KID_A]: KEY } }));
    const own = await dash(
      channel("dash", { keys: { [KID_A.toUpperCase()]: KEY } }),
      url,
      opts({ globalKeys: { ffffffffffffffffffffffffffffffff: KEY } }),
    );
    for (const p of [global, own])
      assert.deepEqual(p.result.inspection, {
        native_supported: true,
        suggested_engine: "native",
        reason: null,
        encrypted: true,
        kids: [KID_A],
      });
    const none = await dash(
      channel("dash"),
      url,
      opts({ globalKeys: { ffffffffffffffffffffffffffffffff: KEY } }),
    );
    assert.equal(none.result.inspection?.native_supported, false);
    assert.match(
      none.result.inspection?.reason ?? "",
      new RegExp(`no key is configured for KID ${KID_A}`),
    );
  });

  it("DASH: non-2xx, over-size and unparsable MPDs", async () => {
    const missing = await dash(channel("dash"), `${base}/none.mpd`, opts());
    assert.deepEqual(
      { ...missing.result, dur_ms: 0 },
      {
        ok: false,
        dur_ms: 0,
        inspection: null,
        error: "upstream answered 404",
      },
    );
    const big = await dash(channel("dash"), `${base}/big.mpd`, opts());
    assert.deepEqual(
      [big.result.ok, big.result.inspection, big.result.error],
      [false, null, `the MPD is larger than security.max_playlist_bytes (${MAX} bytes)`],
    );
    await waitFor(() => oversizeClosed, "the origin never saw the over-size read hang up");
    const garbage = await dash(channel("dash"), `${base}/garbage.mpd`, opts());
    assert.equal(garbage.result.ok, true);
    assert.equal(garbage.result.inspection?.suggested_engine, "ffmpeg");
    assert.match(garbage.result.inspection?.reason ?? "", /did not parse/);
  });

  it("no result carries a header value or a query string", async () => {
    const urls = [
      `${base}/redirect?token=query-secret`,
      `${closedPortUrl}?token=query-secret`,
      `${refusedBase}/x?token=query-secret`,
      `${base}/none.mpd?token=query-secret`,
    ];
    for (const url of urls)
      for (const ingress of ["hls", "dash"] as const) {
        const text = JSON.stringify(await probeSource(channel(ingress), url, opts()));
        assert.doesNotMatch(text, /query-secret|upstream-secret|sig=|visible|probe-agent/, text);
      }
  });
});

/** A probe of a DASH channel, typed as one. */
async function dash(ch: Channel, url: string, o: SourceProbeOptions) {
  const p = await probeSource(ch, url, o);
  if (p.ingress !== "dash") throw new Error("expected a DASH probe");
  return p;
}

/** A probe of an HLS channel, typed as one. */
async function hls(ch: Channel, url: string, o: SourceProbeOptions) {
  const p = await probeSource(ch, url, o);
  if (p.ingress !== "hls") throw new Error("expected an HLS probe");
  return p;
}

function urlWithoutQuery(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

async function waitFor(check: () => boolean, message: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((r) => setTimeout(r, 20));
  }
}
