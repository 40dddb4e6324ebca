import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway, tempDir } from "../harness/gateway-process.js";
import { fixtureBytes, hlsFixtures } from "../harness/hls-fixtures.js";
import { login } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { ffmpegPlays, get, playlistUrls } from "./playback-setup.js";

describe("HLS playback through the full binary", () => {
  let root: string;
  let origin: Origin;
  let gw: GatewayProcess;
  let token: string;
  const dir = tempDir("svc-full-hls-");
  const config = () => ({
    auth: authSection(),
    security: { allowed_hosts: ["127.0.0.1"] },
    channels: [
      { id: "vod", title: "VOD", ingress: "hls", source_url: `${origin.url}/vod/master.m3u8` },
      { id: "enc", title: "ENC", ingress: "hls", source_url: `${origin.url}/enc/media.m3u8` },
    ],
  });

  before(async () => {
    root = await hlsFixtures();
    origin = await startOrigin({ root });
    gw = await startGateway("full", config(), { dir });
    token = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw.stop();
    await origin.close();
  });

  for (const id of ["vod", "enc"]) {
    it(`plays ${id} end to end with ffmpeg`, async () => {
      const r = await ffmpegPlays(`${gw.url}/v1/play/${id}/index.m3u8?token=${token}`);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr.trim(), "");
    });
  }

  it("streams media with the full build's headers and the origin's bytes", async () => {
    const master = await get(`${gw.url}/v1/play/vod/index.m3u8?token=${token}`);
    // [0] is the audio rendition (EXT-X-MEDIA comes first), [1] the first variant: v0.
    const media = await get(playlistUrls(master.text)[1]!);
    const seg = await get(playlistUrls(media.text)[0]!, { "X-Request-ID": "trace-123" });
    assert.equal(seg.status, 200);
    assert.ok(seg.bytes.equals(fixtureBytes(root, "vod/v0_0.ts")));
    assert.equal(seg.headers.get("x-request-id"), "trace-123");
    assert.equal(seg.headers.get("x-frame-options"), "DENY");
    assert.equal(seg.headers.get("x-content-type-options"), "nosniff");
    assert.equal(seg.headers.get("referrer-policy"), "no-referrer");
    assert.ok(seg.headers.get("content-security-policy"));
  });

  it("counts repeated playlist polls (the fast lane's) in /metrics and /v1/status like any request", async () => {
    const counter = async (route: string) => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      const escaped = route.replace(/[/.]/g, "\\$&");
      const m = new RegExp(
        `^svc_http_requests_total\\{method="GET",route="${escaped}",status="200"\\} (\\d+)$`,
        "m",
      ).exec(text);
      return m === null ? 0 : Number(m[1]);
    };
    const requests = async () =>
      (await (
        await fetch(`${gw.url}/v1/status`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        requests: number;
      };
    const master = await get(`${gw.url}/v1/play/vod/index.m3u8?token=${token}`);
    const variant = playlistUrls(master.text)[1]!;
    await get(variant);
    const [indexBefore, uBefore, statusBefore] = [
      await counter("/v1/play/:id/index.m3u8"),
      await counter("/v1/play/:id/u/:upstream"),
      (await requests()).requests,
    ];
    for (let i = 0; i < 4; i++) {
      assert.equal((await get(`${gw.url}/v1/play/vod/index.m3u8?token=${token}`)).status, 200);
      assert.equal((await get(variant)).status, 200);
    }
    assert.equal(await counter("/v1/play/:id/index.m3u8"), indexBefore + 4);
    assert.equal(await counter("/v1/play/:id/u/:upstream"), uBefore + 4);
    assert.equal((await requests()).requests, statusBefore + 8);
  });

  it("keeps its URL signing key in data_dir (mode 0600), so signed URLs survive a restart", async () => {
    const keyFile = join(gw.dataDir, "auth", "signing.key");
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const before = (await get(`${gw.url}/v1/play/enc/index.m3u8?token=${token}`)).text;
    await gw.stop();
    gw = await startGateway("full", config(), { dir });
    token = await login(gw.url, "admin", ADMIN_PASSWORD);
    const again = (await get(`${gw.url}/v1/play/enc/index.m3u8?token=${token}`)).text;
    const strip = (t: string) =>
      playlistUrls(t).map((u) => new URL(u).pathname + new URL(u).searchParams.get("sig"));
    assert.deepEqual(
      strip(again).map((p) => p.replace(/^\/\/[^/]+/, "")),
      strip(before).map((p) => p.replace(/^\/\/[^/]+/, "")),
    );
    const seg = await get(
      playlistUrls(before)[1]!
        .replace(/token=[^&]+/, `token=${token}`)
        .replace(/^http:\/\/[^/]+/, gw.url),
    );
    assert.equal(seg.status, 200);
  });
});
