import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { fixtureBytes, hlsFixtures } from "../harness/hls-fixtures.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { authSection } from "../harness/users.js";
import { eventually, FAST_EGRESS, get, playlistUrls } from "./playback-setup.js";

const PLAYLIST = { "content-type": "application/vnd.apple.mpegurl" };

describe("HLS playback: fan-in, open playback, disconnects and playlist policy", () => {
  let root: string;
  let origin: Origin;
  let gw: GatewayProcess;
  let passthrough: GatewayProcess;

  before(async () => {
    root = await hlsFixtures();
    origin = await startOrigin({
      root,
      routes: (req, res) => {
        if (req.url === "/live-td6.m3u8") {
          // Target duration 6: repeats may come from memory for 2 s. The answer takes
          // 2 s, so requests of a slow burst also meet a fetch in flight to join.
          setTimeout(() => {
            res.writeHead(200, PLAYLIST);
            res.end(
              "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:6,\n/vod/v0_0.ts\n#EXTINF:6,\n/vod/v0_1.ts\n",
            );
          }, 2000);
          return true;
        }
        if (req.url === "/slow-live.m3u8") {
          res.writeHead(200, PLAYLIST);
          res.end(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n/slow/vod/v0_0.ts\n#EXTINF:2,\n/stall-body/seg.ts\n",
          );
          return true;
        }
        return false;
      },
    });
    const o = origin.url;
    const channels = [
      { id: "live", title: "live", ingress: "hls", source_url: `${o}/live/10.m3u8` },
      { id: "popular", title: "popular", ingress: "hls", source_url: `${o}/live-td6.m3u8` },
      { id: "slow", title: "slow", ingress: "hls", source_url: `${o}/slow-live.m3u8` },
      { id: "fmp4", title: "fmp4", ingress: "hls", source_url: `${o}/fmp4/media.m3u8` },
    ];
    const config = (extra: Record<string, unknown>) => ({
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"] },
      // Generous waits: 1,000 requests at once load the origin in this very process.
      egress: { ...FAST_EGRESS, first_byte_timeout_ms: 15_000, idle_timeout_ms: 20_000, ...extra },
      channels,
    });
    // SVC_PLAY_OPEN=1 opens the play routes like `play_require_auth: false`.
    [gw, passthrough] = await Promise.all([
      startGateway("lite", config({}), { env: { SVC_PLAY_OPEN: "1" } }),
      startGateway("lite", {
        ...config({ playlist_policy: "passthrough" }),
        security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      }),
    ]);
  });
  after(async () => {
    await Promise.all([gw.stop(), passthrough.stop()]);
    await origin.close();
  });

  it("opens playback without a credential and writes token-free URLs", async () => {
    const r = await get(`${gw.url}/v1/play/live/index.m3u8`);
    assert.equal(r.status, 200);
    const urls = playlistUrls(r.text);
    assert.equal(urls.length, 10);
    for (const u of urls) {
      assert.match(
        u,
        new RegExp(`^${gw.url}/v1/play/live/u/[A-Za-z0-9_-]+\\.ts\\?sig=[A-Za-z0-9_-]+$`),
      );
    }
  });

  it("serves 1,000 concurrent playlist requests from a handful of upstream fetches", async () => {
    const before = origin.count("/live-td6.m3u8");
    const answers = await Promise.all(
      Array.from({ length: 1000 }, () => get(`${gw.url}/v1/play/popular/index.m3u8`)),
    );
    const fetches = origin.count("/live-td6.m3u8") - before;
    const statuses = answers.map((a) => a.status).filter((s) => s !== 200);
    assert.deepEqual(
      statuses,
      [],
      `non-200 answers: ${statuses.join(",")} ${answers.find((a) => a.status !== 200)?.text}`,
    );
    assert.equal(
      new Set(answers.map((a) => a.text)).size,
      1,
      "every viewer gets the same playlist",
    );
    assert.ok(fetches >= 1 && fetches <= 5, `upstream playlist fetches: ${fetches}`);
  });

  it("shares one upstream fetch among identical concurrent segment requests", async () => {
    const [slowSeg] = playlistUrls((await get(`${gw.url}/v1/play/slow/index.m3u8`)).text);
    const before = origin.count("/slow/");
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(slowSeg!)));
    const expected = fixtureBytes(root, "vod/v0_0.ts");
    for (const a of answers) {
      assert.equal(a.status, 200);
      assert.equal(a.headers.get("content-length"), String(expected.length));
      // A proxied u/ segment is never offered to caches, not even on open play and not
      // even though the origin said max-age=60 (docs/playback.md "Cache-Control").
      assert.equal(a.headers.get("cache-control"), "no-store, no-cache, must-revalidate");
      assert.ok(a.bytes.equals(expected));
    }
    // The origin holds its answer 400 ms, so all 20 overlap one fetch; 2 allows a straggler.
    assert.ok(
      origin.count("/slow/") - before <= 2,
      `upstream fetches: ${origin.count("/slow/") - before}`,
    );
  });

  for (const withRange of [false, true]) {
    it(`aborts the upstream request when the client disconnects (${withRange ? "Range" : "shared"})`, async () => {
      const [, stalled] = playlistUrls((await get(`${gw.url}/v1/play/slow/index.m3u8`)).text);
      const before = origin.hits.length;
      const ac = new AbortController();
      const res = await fetch(stalled!, {
        signal: ac.signal,
        headers: withRange ? { Range: "bytes=0-" } : {},
      });
      const reader = res.body!.getReader();
      const first = await reader.read();
      assert.equal(first.done, false);
      ac.abort();
      await reader.cancel().catch(() => undefined);
      const hit = origin.hits.slice(before).find((h) => h.path === "/stall-body/seg.ts");
      assert.ok(hit);
      await eventually(() => hit.aborted);
    });
  }

  it("with playlist_policy passthrough leaves media URIs pointing upstream", async () => {
    const r = await get(`${passthrough.url}/v1/play/fmp4/index.m3u8`);
    assert.equal(r.status, 200);
    const urls = playlistUrls(r.text);
    assert.ok(urls.length >= 4);
    for (const u of urls) assert.ok(u.startsWith(`${origin.url}/fmp4/`), u);
  });
});
