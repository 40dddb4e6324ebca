import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { fixtureBytes, hlsFixtures } from "../harness/hls-fixtures.js";
import { login } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { eventually, FAST_EGRESS, ffmpegPlays, get, playlistUrls } from "./playback-setup.js";

const hls = (id: string, source_url: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: id,
  ingress: "hls",
  source_url,
  ...extra,
});

describe("HLS playback through the lite binary: rewriting and the u/ proxy", () => {
  let root: string;
  let origin: Origin;
  let gw: GatewayProcess;
  let token: string;
  const play = (id: string, rest = "index.m3u8") =>
    `${gw.url}/v1/play/${id}/${rest}?token=${token}`;

  before(async () => {
    root = await hlsFixtures();
    origin = await startOrigin({
      root,
      // A playlist whose segments are the origin's failure endpoints.
      routes: (req, res) => {
        if (req.url !== "/failing.m3u8") return false;
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
        const segs = [
          "/status/404",
          "/status/410",
          "/status/500",
          "/status/403",
          "/stall",
          "/redirect/6/vod/v0_0.ts",
          "/stall-body/seg.ts",
        ];
        res.end(
          `#EXTM3U\n#EXT-X-TARGETDURATION:1\n${segs.map((s) => `#EXTINF:1,\n${s}`).join("\n")}\n`,
        );
        return true;
      },
    });
    const o = origin.url;
    gw = await startGateway("lite", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], max_playlist_bytes: 64 * 1024 },
      egress: FAST_EGRESS,
      upstreams: [{ id: "origin", base_url: `${o}/` }],
      channels: [
        hls("vod", `${o}/vod/master.m3u8`, {
          headers: { "X-Channel-Auth": "chan-secret", Cookie: "c=1" },
          user_agent: "ChannelAgent/1.0",
        }),
        hls("enc", `${o}/enc/media.m3u8`),
        hls("fmp4", `${o}/fmp4/media.m3u8`),
        hls("range", `${o}/range/media.m3u8`),
        hls("abs", `${o}/abs/vod/v0.m3u8`),
        { id: "joined", title: "joined", ingress: "hls", upstream: "origin", path: "vod/v1.m3u8" },
        hls("redirected", `${o}/redirect/5/vod/v0.m3u8`),
        hls("loop", `${o}/redirect/6/vod/v0.m3u8`),
        hls("oversized", `${o}/oversized.m3u8`),
        hls("stall", `${o}/stall`),
        hls("broken", `${o}/status/500`),
        hls("missing", `${o}/status/404`),
        hls("sniffed", `${o}/vod/v0-noext`),
        hls("ll", `${o}/live/4.m3u8`),
        hls("failing", `${o}/failing.m3u8`),
      ],
    });
    token = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw.stop();
    await origin.close();
  });

  it("rewrites every URI of a master playlist to signed u/ URLs carrying the token", async () => {
    const r = await get(play("vod"));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/vnd.apple.mpegurl");
    const original = fixtureBytes(root, "vod/master.m3u8").toString("utf8");
    // Every line without a URI is copied verbatim, in order.
    const strip = (t: string) =>
      t.split("\n").filter((l) => !l.includes("URI=") && (l.startsWith("#") || l === ""));
    assert.deepEqual(strip(r.text), strip(original));
    const urls = playlistUrls(r.text);
    assert.equal(urls.length, 4, r.text); // three variants and the audio rendition
    for (const u of urls) {
      assert.match(
        u,
        new RegExp(`^${gw.url}/v1/play/vod/u/[A-Za-z0-9_-]+\\.m3u8\\?sig=[A-Za-z0-9_-]{43}&token=`),
      );
      assert.equal(new URL(u).searchParams.get("token"), token);
    }
    const targets = urls.map((u) =>
      Buffer.from(new URL(u).pathname.split("/")[5]!.split(".")[0]!, "base64url").toString(),
    );
    assert.deepEqual(
      targets.sort(),
      [
        `${origin.url}/vod/v0.m3u8`,
        `${origin.url}/vod/v1.m3u8`,
        `${origin.url}/vod/vaudio.m3u8`,
        `${origin.url}/vod/vaudio.m3u8`,
      ].sort(),
    );
  });

  it("serves media bytes through u/ identical to the origin's, for every rendition", async () => {
    const master = await get(play("vod"));
    for (const variant of playlistUrls(master.text)) {
      const media = await get(variant);
      assert.equal(media.status, 200);
      const segs = playlistUrls(media.text);
      assert.ok(segs.length >= 3);
      for (const seg of segs) {
        const target = Buffer.from(
          new URL(seg).pathname.split("/")[5]!.split(".")[0]!,
          "base64url",
        ).toString();
        const body = await get(seg);
        assert.equal(body.status, 200);
        assert.equal(body.headers.get("content-type"), "video/mp2t");
        assert.ok(body.bytes.equals(fixtureBytes(root, new URL(target).pathname)), seg);
        assert.equal(body.headers.get("x-upstream-secret"), null);
      }
    }
  });

  for (const id of ["vod", "enc", "fmp4", "range", "abs", "joined", "redirected"]) {
    it(`plays ${id} end to end with ffmpeg`, async () => {
      const r = await ffmpegPlays(play(id));
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.trim(), "");
    });
  }

  it("rewrites keys, init sections and byte-range segments", async () => {
    const enc = await get(play("enc"));
    assert.match(
      enc.text,
      new RegExp(
        `#EXT-X-KEY:METHOD=AES-128,URI="${gw.url}/v1/play/enc/u/[^"]+\\.bin\\?sig=[^"]+&token=[^"]+",IV=0x`,
      ),
    );
    const key = await get(playlistUrls(enc.text)[0]!);
    assert.ok(key.bytes.equals(fixtureBytes(root, "enc/key.bin")));
    const fmp4 = await get(play("fmp4"));
    assert.match(fmp4.text, /#EXT-X-MAP:URI="[^"]+\/u\/[^"]+\.mp4\?sig=/);
    const init = await get(playlistUrls(fmp4.text)[0]!);
    assert.ok(init.bytes.equals(fixtureBytes(root, "fmp4/init.mp4")));
    const range = await get(play("range"));
    assert.match(range.text, /#EXT-X-BYTERANGE:\d+@\d+\n[^\n]+\/u\/[^\n]+\.ts\?sig=/);
  });

  it("resolves relative URIs against the final URL after redirects, and gives up after five", async () => {
    const r = await get(play("redirected"));
    assert.equal(r.status, 200);
    const seg = playlistUrls(r.text)[0]!;
    const target = Buffer.from(
      new URL(seg).pathname.split("/")[5]!.split(".")[0]!,
      "base64url",
    ).toString();
    assert.equal(target, `${origin.url}/vod/v0_0.ts`);
    const loop = await get(play("loop"));
    assert.equal(loop.status, 502);
    assert.equal(loop.json.error.code, "upstream_error");
  });

  it("forwards Range and If-Range only, and keeps the 206 headers", async () => {
    const media = await get(play("range"));
    const seg = playlistUrls(media.text)[0]!;
    const whole = fixtureBytes(root, "range/media.ts");
    const before = origin.hits.length;
    const r = await get(seg, {
      Range: "bytes=100-1099",
      Cookie: "player-cookie=1",
      "X-Forwarded-For": "10.0.0.1",
      Authorization: `Bearer ${token}`,
    });
    assert.equal(r.status, 206);
    assert.ok(r.bytes.equals(whole.subarray(100, 1100)));
    assert.equal(r.headers.get("content-range"), `bytes 100-1099/${whole.length}`);
    assert.equal(r.headers.get("content-length"), "1000");
    assert.equal(r.headers.get("accept-ranges"), "bytes");
    assert.ok(r.headers.get("etag"));
    assert.ok(r.headers.get("last-modified"));
    assert.equal(r.headers.get("x-upstream-secret"), null);
    const hit = origin.hits.slice(before).find((h) => h.path === "/range/media.ts")!;
    assert.equal(hit.headers.range, "bytes=100-1099");
    assert.equal(hit.headers.cookie, undefined);
    assert.equal(hit.headers["x-forwarded-for"], undefined);
    assert.equal(hit.headers.authorization, undefined);
    // If-Range with a stale validator: the origin answers the whole file.
    const stale = await get(seg, { Range: "bytes=0-9", "If-Range": '"stale"' });
    assert.equal(stale.status, 200);
    assert.equal(stale.bytes.length, whole.length);
  });

  it("sends the channel's headers and user agent with playlists and segments", async () => {
    const before = origin.hits.length;
    const master = await get(play("vod"));
    const media = await get(playlistUrls(master.text)[0]!);
    await get(playlistUrls(media.text)[0]!);
    const hits = origin.hits.slice(before);
    assert.ok(hits.length >= 2);
    for (const h of hits) {
      assert.equal(h.headers["x-channel-auth"], "chan-secret");
      assert.equal(h.headers.cookie, "c=1");
      assert.equal(h.headers["user-agent"], "ChannelAgent/1.0");
    }
  });

  it("passes 404, 410 and 416 through with an empty body and hides other failures", async () => {
    // A signed URL for each failure endpoint, taken from a playlist the gateway rewrote.
    const media = await get(play("fmp4"));
    const seg = playlistUrls(media.text)[1]!;
    const r416 = await get(seg, { Range: "bytes=99999999-" });
    assert.equal(r416.status, 416);
    assert.equal(r416.bytes.length, 0);
    assert.match(r416.headers.get("content-range") ?? "", /^bytes \*\/\d+$/);
    assert.equal(r416.headers.get("etag"), null);
    const [s404, s410, s500, s403, stall, loop] = playlistUrls((await get(play("failing"))).text);
    for (const [url, status] of [
      [s404, 404],
      [s410, 410],
    ] as const) {
      const r = await get(url!);
      assert.equal(r.status, status);
      assert.equal(r.bytes.length, 0);
      assert.equal(r.headers.get("x-upstream-secret"), null);
    }
    for (const url of [s500, s403, stall, loop]) {
      const r = await get(url!);
      assert.equal(r.status, 502, url);
      assert.deepEqual(r.json, {
        error: { code: "upstream_error", message: r.json.error.message },
      });
      assert.doesNotMatch(r.text, /origin-secret|token|sig=/);
      assert.equal(r.headers.get("x-upstream-secret"), null);
    }
    const missing = await get(play("missing"));
    assert.equal(missing.status, 502);
    assert.equal(missing.json.error.code, "upstream_error");
    const broken = await get(play("broken"));
    assert.equal(broken.status, 502);
    assert.deepEqual(Object.keys(broken.json), ["error"]);
    assert.doesNotMatch(broken.text, /origin-secret/);
    assert.equal(broken.headers.get("x-upstream-secret"), null);
  });

  it("cuts a client off when the upstream body stalls past the idle timeout", async () => {
    const stalled = playlistUrls((await get(play("failing"))).text)[6]!;
    const before = origin.hits.length;
    const res = await fetch(stalled);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-length"), String(1024 * 1024));
    await assert.rejects(res.arrayBuffer());
    const hit = origin.hits.slice(before).find((h) => h.path === "/stall-body/seg.ts");
    assert.ok(hit);
    await eventually(() => hit.aborted);
  });

  it("refuses a playlist over max_playlist_bytes and a stalled upstream with 502", async () => {
    const big = await get(play("oversized"));
    assert.equal(big.status, 502);
    assert.equal(big.json.error.code, "upstream_error");
    assert.match(big.json.error.message, /max_playlist_bytes/);
    const stall = await get(play("stall"));
    assert.equal(stall.status, 502);
    assert.equal(stall.json.error.code, "upstream_error");
  });

  it("recognises a playlist by its #EXTM3U start behind an octet-stream type", async () => {
    const r = await get(play("sniffed"));
    assert.equal(r.status, 200);
    assert.ok(playlistUrls(r.text).every((u) => u.includes("/v1/play/sniffed/u/")));
  });

  it("forwards LL-HLS directives upstream and never caches those answers", async () => {
    const before = origin.count("/live/4.m3u8");
    const a = await get(`${play("ll")}&_HLS_msn=103&_HLS_part=2&_HLS_skip=YES`);
    const b = await get(`${play("ll")}&_HLS_msn=103&_HLS_part=2&_HLS_skip=YES`);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    // (Besides the directed ones, at most one plain fetch that learns the live edge.)
    const hits = origin.hits
      .filter((h) => h.path === "/live/4.m3u8")
      .slice(before)
      .filter((h) => h.url.includes("_HLS_"));
    assert.equal(hits.length, 2);
    for (const h of hits) assert.match(h.url, /\?_HLS_msn=103&_HLS_part=2&_HLS_skip=YES$/);
    // A playlist with EXT-X-ENDLIST will not change (RFC 8216bis 6.2.5.2): behind u/, its
    // directives are not forwarded; the shared answer serves them.
    const variant = playlistUrls((await get(play("vod"))).text)[1]!;
    for (let i = 0; i < 2; i++)
      assert.equal((await get(`${variant}&_HLS_msn=7&_HLS_part=0`)).status, 200);
    assert.equal(
      origin.hits.filter((h) => h.path === "/vod/v0.m3u8" && h.url.includes("_HLS_")).length,
      0,
    );
    const bogus = await get(`${play("ll")}&_HLS_msn=abc&_HLS_skip=maybe`);
    assert.equal(bogus.status, 200);
    // Invalid directives are dropped: the plain (cached) playlist answers.
    assert.equal(
      origin.hits.some((h) => /abc|maybe/.test(h.url)),
      false,
    );
  });
});
