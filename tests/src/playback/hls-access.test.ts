import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { hlsFixtures } from "../harness/hls-fixtures.js";
import { login } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection, VIEWER_PASSWORD } from "../harness/users.js";
import { FAST_EGRESS, get, mintPreviewToken, playlistUrls } from "./playback-setup.js";

const hls = (id: string, source_url: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: id,
  ingress: "hls",
  source_url,
  ...extra,
});

describe("HLS playback: credentials, viewer leases and the egress guard", () => {
  let origin: Origin;
  /** Listens on 127.0.0.2, which is loopback but not allow-listed: it must never see a request. */
  let forbidden: Origin;
  let gw: GatewayProcess;
  let admin: string;
  let viewer: string;

  before(async () => {
    const root = await hlsFixtures();
    forbidden = await startOrigin({ root, host: "127.0.0.2" });
    origin = await startOrigin({
      root,
      routes: (req, res) => {
        if (req.url === "/points-elsewhere.m3u8") {
          res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
          res.end(
            `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${forbidden.url}/vod/v0_0.ts\n#EXTINF:1,\nhttp://[::ffff:127.0.0.2]:${forbidden.port}/vod/v0_1.ts\n#EXTINF:1,\n/vod/v0_2.ts\n`,
          );
          return true;
        }
        if (req.url === "/hop-elsewhere.m3u8") {
          res.writeHead(302, { location: `${forbidden.url}/vod/v0.m3u8` }).end();
          return true;
        }
        return false;
      },
    });
    const o = origin.url;
    gw = await startGateway("lite", {
      auth: authSection(["vod"]),
      security: { allowed_hosts: ["127.0.0.1"] },
      egress: FAST_EGRESS,
      channels: [
        hls("vod", `${o}/vod/v0.m3u8`),
        hls("enc", `${o}/enc/media.m3u8`),
        hls("off", `${o}/vod/v0.m3u8`, { disabled: true }),
        hls("limited", `${o}/vod/v0.m3u8`, { max_viewers: 1 }),
        hls("elsewhere", `${o}/points-elsewhere.m3u8`),
        hls("direct-refused", `${forbidden.url}/vod/v0.m3u8`),
        hls("mapped-refused", `http://[::ffff:127.0.0.2]:${forbidden.port}/vod/v0.m3u8`),
        hls("hop-refused", `${o}/hop-elsewhere.m3u8`),
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
    viewer = await login(gw.url, "viewer", VIEWER_PASSWORD);
  });
  after(async () => {
    await gw.stop();
    await origin.close();
    await forbidden.close();
  });

  const index = (id: string, query = "") => `${gw.url}/v1/play/${id}/index.m3u8${query}`;

  it("requires a session or preview JWT on every play route", async () => {
    const signed = playlistUrls((await get(index("vod", `?token=${admin}`))).text)[0]!;
    const unsigned = signed.replace(/&token=[^&]+/, "");
    for (const url of [index("vod"), unsigned, `${gw.url}/v1/play/vod/live/seg.ts`]) {
      const r = await get(url);
      assert.equal(r.status, 401, url);
      assert.deepEqual(r.json, { error: { code: "unauthorized", message: r.json.error.message } });
    }
    const apiToken = await get(index("vod"), { Authorization: `Bearer svc_v1_${"a".repeat(48)}` });
    assert.equal(apiToken.status, 401);
    const garbage = await get(index("vod", "?token=not-a-jwt"));
    assert.equal(garbage.status, 401);
  });

  it("accepts Authorization: Bearer and carries that token into every rewritten URL", async () => {
    const r = await get(index("vod"), { Authorization: `Bearer ${admin}` });
    assert.equal(r.status, 200);
    const urls = playlistUrls(r.text);
    assert.ok(urls.length > 0);
    for (const u of urls) assert.equal(new URL(u).searchParams.get("token"), admin);
    const seg = await get(urls[0]!);
    assert.equal(seg.status, 200);
  });

  it("lets ?token= take precedence over the header", async () => {
    const queryWins = await get(index("vod", `?token=${admin}`), {
      Authorization: "Bearer garbage",
    });
    assert.equal(queryWins.status, 200);
    const badQuery = await get(index("vod", "?token=garbage"), {
      Authorization: `Bearer ${admin}`,
    });
    assert.equal(badQuery.status, 401);
  });

  it("limits a restricted user and a preview token to their channels", async () => {
    assert.equal((await get(index("vod", `?token=${viewer}`))).status, 200);
    const other = await get(index("enc", `?token=${viewer}`));
    assert.equal(other.status, 403);
    assert.equal(other.json.error.code, "forbidden");
    const preview = await mintPreviewToken(gw.dataDir, "enc");
    const ok = await get(index("enc", `?token=${preview}`));
    assert.equal(ok.status, 200);
    for (const u of playlistUrls(ok.text))
      assert.equal(new URL(u).searchParams.get("token"), preview);
    assert.equal((await get(index("vod", `?token=${preview}`))).status, 403);
  });

  it("answers 404 for unknown and disabled channels", async () => {
    for (const id of ["nope", "off"]) {
      const r = await get(index(id, `?token=${admin}`));
      assert.equal(r.status, 404);
      assert.equal(r.json.error.code, "not_found");
    }
  });

  it("answers 403 for any change to a signed URL, before contacting the origin", async () => {
    const seg = playlistUrls((await get(index("vod", `?token=${admin}`))).text)[0]!;
    const u = new URL(seg);
    const [, , , , , upstream] = u.pathname.split("/");
    const sig = u.searchParams.get("sig")!;
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    const before = origin.hits.length;
    const variants = [
      seg.replace(`sig=${sig}`, `sig=${flip(sig)}`),
      seg.replace(`sig=${sig}&`, ""),
      seg.replace(upstream!, flip(upstream!)),
      seg.replace(upstream!, upstream!.replace(/\.ts$/, ".mp4")),
      seg.replace("/v1/play/vod/", "/v1/play/enc/"),
    ];
    for (const url of variants) {
      const r = await get(url);
      assert.equal(r.status, 403, url);
      assert.equal(r.json.error.code, "forbidden");
      assert.doesNotMatch(r.text, new RegExp(sig));
    }
    // None of the tampered segment URLs reached the origin. A playlist fetch may land in this
    // window (the gateway refreshing the vod playlist it just served, on a loaded machine): it
    // is not one of them.
    assert.deepEqual(
      origin.hits
        .slice(before)
        .map((h) => h.url)
        .filter((url) => !new URL(url, origin.url).pathname.endsWith(".m3u8")),
      [],
    );
  });

  it("refuses loopback targets that are not allow-listed, and that origin sees no request", async () => {
    const r = await get(index("elsewhere", `?token=${admin}`));
    assert.equal(r.status, 200);
    const [direct, mapped, allowed] = playlistUrls(r.text);
    for (const url of [direct!, mapped!]) {
      const seg = await get(url);
      assert.equal(seg.status, 403);
      assert.equal(seg.json.error.code, "forbidden");
    }
    assert.equal((await get(allowed!)).status, 200);
    for (const id of ["direct-refused", "mapped-refused", "hop-refused"]) {
      const refused = await get(index(id, `?token=${admin}`));
      assert.equal(refused.status, 403, id);
      assert.equal(refused.json.error.code, "forbidden");
    }
    assert.equal(forbidden.hits.length, 0);
  });

  it("mints a viewer lease with a 307, renews it, and refuses a viewer over the limit", async () => {
    const first = await get(index("limited", `?token=${admin}`));
    assert.equal(first.status, 307);
    const location = first.headers.get("location")!;
    const leased = new URL(location);
    assert.equal(leased.pathname, "/v1/play/limited/index.m3u8");
    assert.equal(leased.searchParams.get("token"), admin);
    const lease = leased.searchParams.get("viewer")!;
    assert.match(lease, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const playing = await get(location);
    assert.equal(playing.status, 200);
    for (const u of playlistUrls(playing.text))
      assert.equal(new URL(u).searchParams.get("viewer"), lease);
    assert.equal((await get(location)).status, 200, "renewal");
    const second = await get(index("limited", `?token=${admin}`));
    assert.equal(second.status, 429);
    assert.equal(second.json.error.code, "too_many_requests");
    const forged = await get(
      index(
        "limited",
        `?token=${admin}&viewer=${lease.slice(0, -1)}${lease.endsWith("A") ? "B" : "A"}`,
      ),
    );
    assert.equal(forged.status, 403);
    assert.equal(forged.json.error.code, "forbidden");
  });

  it("answers live/{file} 404 for an HLS channel and refuses path separators in the name", async () => {
    const r = await get(`${gw.url}/v1/play/vod/live/seg1.ts?token=${admin}`);
    assert.equal(r.status, 404);
    assert.equal(r.json.error.code, "not_found");
    for (const name of ["..%2Fsecret", "a%5Cb", "x%00y", "a%2F..%2Fb"]) {
      const bad = await get(`${gw.url}/v1/play/vod/live/${name}?token=${admin}`);
      assert.equal(bad.status, 400, name);
      assert.equal(bad.json.error.code, "invalid_request");
    }
  });
});
