import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { fixtureBytes, hlsFixtures } from "../harness/hls-fixtures.js";
import { requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { get, playlistUrls } from "../playback/playback-setup.js";
import { type LoopbackProxy, startHttpProxy } from "./loopback-proxies.js";

/**
 * `playlist_policy` of the stored egress document (docs/playback.md, docs/egress.md): a PUT
 * through the admin API changes how the next playlist is written, without a restart, and the
 * config file's value (here `rewrite`) no longer decides once the document says otherwise.
 */
describe("playlist_policy of the stored egress document reaches playback live", () => {
  let root: string;
  let origin: Origin;
  let proxy: LoopbackProxy;
  let full: FullGateway;

  const api = (path: string, init: Parameters<typeof requestJson>[1] = {}) =>
    requestJson(`${full.base}${path}`, { token: full.admin, ...init });
  const setPolicy = async (policy: string) => {
    const doc = await api("/v1/admin/egress");
    const r = await api("/v1/admin/egress", {
      method: "PUT",
      body: { ...doc.body, playlist_policy: policy },
      headers: { "if-match": `"${doc.body.revision}"` },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.playlist_policy, policy);
  };
  /** The media URIs of a channel's playlist: `u/` on the gateway, or the origin's own. */
  const media = async (id: string) => {
    const pl = await get(`${full.base}/v1/play/${id}/index.m3u8`);
    assert.equal(pl.status, 200, pl.text);
    const urls = playlistUrls(pl.text);
    assert.ok(urls.length >= 2, pl.text);
    const upstream = urls.every((u) => u.startsWith(`${origin.url}/vod/v0_`));
    const gateway = urls.every((u) => u.startsWith(`${full.base}/v1/play/${id}/u/`));
    assert.ok(upstream !== gateway, `mixed or unexpected URIs:\n${pl.text}`);
    return { kind: upstream ? "origin" : "gateway", first: urls[0]! };
  };
  const firstSegment = () => fixtureBytes(root, "vod/v0_0.ts");

  before(async () => {
    root = await hlsFixtures();
    origin = await startOrigin({ root });
    proxy = await startHttpProxy();
    full = await startFull({
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      egress: {
        playlist_policy: "rewrite",
        proxies: [{ id: "open", name: "open HTTP proxy", url: `http://127.0.0.1:${proxy.port}` }],
      },
    });
    const source = `${origin.url}/vod/v0.m3u8`;
    for (const body of [
      { id: "plain", title: "plain", ingress: "hls", source_url: source },
      { id: "agent", title: "agent", ingress: "hls", source_url: source, user_agent: "Box/1.0" },
      {
        id: "proxied",
        title: "proxied",
        ingress: "hls",
        source_url: source,
        egress: { mode: "profile", profile_id: "open" },
      },
    ]) {
      const r = await api("/v1/admin/channels", { body });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => {
    await full?.gw.stop();
    await origin?.close();
    await proxy?.close();
  });

  it("rewrite (config file and first document): every media URI goes through u/", async () => {
    assert.equal((await api("/v1/admin/egress")).body.playlist_policy, "rewrite");
    for (const id of ["plain", "agent", "proxied"]) {
      const m = await media(id);
      assert.equal(m.kind, "gateway", id);
      const seg = await get(m.first);
      assert.equal(seg.status, 200);
      assert.ok(seg.bytes.equals(firstSegment()));
    }
  });

  it("passthrough, PUT through the API: the next playlist points media at the origin", async () => {
    const hits = origin.count("/vod/v0.m3u8");
    await setPolicy("passthrough");
    for (const id of ["plain", "agent", "proxied"]) {
      const m = await media(id);
      assert.equal(m.kind, "origin", id);
      assert.equal(m.first, `${origin.url}/vod/v0_0.ts`);
    }
    // Compiled anew, not served from the playlist cache filled under `rewrite`.
    assert.ok(origin.count("/vod/v0.m3u8") >= hits + 3);
    // A player fetches the segment from the origin itself.
    const seg = await get(`${origin.url}/vod/v0_0.ts`);
    assert.ok(seg.bytes.equals(firstSegment()));
  });

  it("auto: passthrough only where a player can fetch the media as the gateway would", async () => {
    await setPolicy("auto");
    // No headers, no user agent, direct route: the player may go to the origin.
    assert.equal((await media("plain")).kind, "origin");
    // Its own user agent: the player could not send it, so media stays on u/.
    assert.equal((await media("agent")).kind, "gateway");
    // Bound to a proxy profile: media keeps the channel's route through the gateway.
    const before = proxy.relayed;
    const m = await media("proxied");
    assert.equal(m.kind, "gateway");
    const seg = await get(m.first);
    assert.ok(seg.bytes.equals(firstSegment()));
    assert.ok(proxy.relayed - before >= firstSegment().length, "the segment bypassed the proxy");
  });

  it("back to rewrite: u/ again, and the connection test reports the same policy", async () => {
    await setPolicy("rewrite");
    for (const id of ["plain", "agent", "proxied"]) assert.equal((await media(id)).kind, "gateway");
    await setPolicy("auto");
    const t = await api("/v1/admin/egress/test", {
      body: { target: "custom", url: `${origin.url}/vod/v0_0.ts`, channel_id: "proxied" },
    });
    assert.equal(t.status, 200, t.text);
    assert.equal(t.body.via_proxy, true);
    assert.equal(t.body.rewrite, true);
    const direct = await api("/v1/admin/egress/test", {
      body: { target: "custom", url: `${origin.url}/vod/v0_0.ts`, channel_id: "plain" },
    });
    assert.equal(direct.body.via_proxy, false);
    assert.equal(direct.body.rewrite, false);
  });
});
