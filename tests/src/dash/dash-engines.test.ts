import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { mdatHash, playWithFfmpeg, probeMp4, tagUris, uriLines } from "../harness/media-probe.js";
import { allProcs, cmdline } from "../harness/process-table.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

const KID = "9eb4050de44b4802932e27d75083e266";
const KEY = "166634c675823c235a4a9446fad52e4d";
const OTHER_KID = "0123456789abcdef0123456789abcdef";
const OTHER_KEY = "fedcba9876543210fedcba9876543210";

async function sessionOf(base: string, admin: string, id: string) {
  const r = await requestJson(`${base}/v1/status`, { token: admin });
  return (r.body.sessions as { channel_id: string; [k: string]: unknown }[]).find(
    (s) => s.channel_id === id,
  );
}

describe("encrypted live DASH (ClearKey cenc) through the native engine of the full binary", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  let admin: string;

  before(async () => {
    src = await startDashLiveSource({
      heights: [180],
      languages: ["eng"],
      encrypt: { kid: KID, key: KEY },
    });
    await src.waitForSegments(3);
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      media: { keys: { [OTHER_KID]: OTHER_KEY } },
      channels: [
        { id: "enc", title: "enc", ingress: "dash", source_url: src.mpdUrl, keys: { [KID]: KEY } },
        // Only media.keys, which hold another KID: the session must say which KID it lacks.
        { id: "nokey", title: "nokey", ingress: "dash", source_url: src.mpdUrl },
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("plays 10 s with ffmpeg, which is given no key", async () => {
    const r = await playWithFfmpeg(`${gw.url}/v1/play/enc/index.m3u8`, 10);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const s = await sessionOf(gw.url, admin, "enc");
    assert.equal(s?.engine, "native");
    assert.equal(s?.fallback_reason, null);
  });

  it("publishes clear fMP4: avc1/mp4a sample entries and the source's own samples", async () => {
    const master = await (await fetch(`${gw.url}/v1/play/enc/index.m3u8`)).text();
    for (const [playlistUrl, stream, tag] of [
      [uriLines(master)[0]!, 0, "avc1"],
      [new URL(tagUris(master, "EXT-X-MEDIA")[0]!, `${gw.url}/v1/play/enc/`).href, 1, "mp4a"],
    ] as const) {
      const media = await (await fetch(playlistUrl)).text();
      const initAnswer = await fetch(new URL(tagUris(media, "EXT-X-MAP")[0]!, playlistUrl));
      assert.equal(initAnswer.headers.get("cache-control"), "public, max-age=31536000, immutable");
      const init = Buffer.from(await initAnswer.arrayBuffer());
      const segUrl = new URL(uriLines(media).at(-1)!, playlistUrl);
      const segAnswer = await fetch(segUrl);
      // Open play, a URL pinned to its generation: public and immutable (docs/playback.md "Cache-Control").
      assert.equal(segAnswer.headers.get("cache-control"), "public, max-age=31536000, immutable");
      const seg = Buffer.from(await segAnswer.arrayBuffer());
      assert.equal(init.includes("encv") || init.includes("enca") || init.includes("sinf"), false);
      assert.equal(seg.includes("senc"), false);
      const probed = probeMp4([init, seg]);
      assert.equal(probed.errors, "");
      assert.ok(probed.frames > 0);
      assert.equal(probed.streams[0]?.codec_tag_string, tag);
      // The origin keeps its clear files on disk and encrypts as it serves: the gateway's
      // decrypted samples must equal one of the clear source segments' samples exactly.
      const clear = new Set(
        readdirSync(src.dir)
          .filter((f) => f.startsWith(`chunk-stream${stream}-`) && f.endsWith(".m4s"))
          .map((f) => mdatHash(readFileSync(join(src.dir, f)))),
      );
      assert.ok(clear.has(mdatHash(seg)), `${segUrl.pathname}: no clear source segment matches`);
    }
  });

  it("keeps media behind a playback key private, and playlists no-cache", async () => {
    const created = await requestJson(`${gw.url}/v1/admin/access-tokens`, {
      token: admin,
      body: { name: "cache", note: "", channel_ids: ["enc"], expires_in_sec: 0 },
    });
    assert.equal(created.status, 201, created.text);
    const base = `${gw.url}/p/${created.body.token}/play/enc/`;
    const master = await fetch(`${base}index.m3u8`);
    assert.equal(master.status, 200);
    assert.equal(master.headers.get("cache-control"), "no-cache");
    const playlistUrl = uriLines(await master.text())[0]!;
    const media = await fetch(playlistUrl);
    assert.equal(media.headers.get("cache-control"), "no-cache");
    const text = await media.text();
    for (const uri of [tagUris(text, "EXT-X-MAP")[0]!, uriLines(text).at(-1)!]) {
      const r = await fetch(new URL(uri, playlistUrl));
      assert.equal(r.status, 200);
      // The key is the credential: its revocation and access log must see every request.
      assert.equal(r.headers.get("cache-control"), "private, max-age=31536000, immutable");
      await r.arrayBuffer();
    }
  });

  it("fails a session whose KID has no key, naming the KID and never a key", async () => {
    const r = await requestJson(`${gw.url}/v1/play/nokey/index.m3u8`);
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, "not_ready");
    const s = await until("the nokey session to fail", async () => {
      const x = await sessionOf(gw.url, admin, "nokey");
      return x?.state === "failed" ? x : undefined;
    });
    assert.match(String(s.last_error), new RegExp(`no key is configured for KID ${KID}`));
    const everything = JSON.stringify(s) + gw.stdout() + gw.stderr();
    for (const secret of [KEY, OTHER_KEY]) assert.equal(everything.includes(secret), false);
  });
});

describe("ffmpeg compatibility engine through the full binary", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  let admin: string;
  const ffmpegOfGateway = () =>
    allProcs().filter((p) =>
      cmdline(p.pid).some((a) => a.startsWith(join(gw.dataDir, "sessions") + "/")),
    );

  before(async () => {
    // SegmentList addressing: the native engine refuses it, ffmpeg's DASH reader plays it.
    src = await startDashLiveSource({
      heights: [180],
      languages: ["eng"],
      useTemplate: false,
      fragDurationSec: 0,
    });
    await src.waitForSegments(3);
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [
        { id: "list", title: "list", ingress: "dash", source_url: src.mpdUrl },
        {
          id: "strict",
          title: "strict",
          ingress: "dash",
          source_url: src.mpdUrl,
          engine: "native",
        },
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("serves a source the native engine refuses, saying why it fell back", async () => {
    const r = await playWithFfmpeg(`${gw.url}/v1/play/list/index.m3u8`, 6);
    assert.equal(r.code, 0, r.stderr);
    const s = await sessionOf(gw.url, admin, "list");
    assert.equal(s?.engine, "ffmpeg");
    assert.match(String(s?.fallback_reason), /SegmentList/);
    assert.equal(s?.pack_mode, "hls");
    const master = await (await fetch(`${gw.url}/v1/play/list/index.m3u8`)).text();
    const videoUri = uriLines(master)[0]!;
    assert.match(videoUri, /^live\/media-0\.m3u8\?g=/);
    const pl = await (await fetch(`${gw.url}/v1/play/list/${videoUri}`)).text();
    assert.match(pl, /#EXT-X-MAP:URI="init-r0-0\.mp4\?g=/);
    const seg = uriLines(pl).at(-1)!;
    assert.match(seg, /^r0-0-\d+\.m4s\?g=/);
    const media = await fetch(`${gw.url}/v1/play/list/live/${seg}`);
    assert.equal(media.status, 200);
    // Open play: public, so nginx or a CDN in front may share it (docs/playback.md "Cache-Control").
    assert.equal(media.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(
      (await fetch(`${gw.url}/v1/play/list/live/${seg.replace(/\?.*/, "")}`)).headers.get(
        "cache-control",
      ),
      "no-cache",
      "without g a name is not pinned to a generation",
    );
  });

  it("keeps a channel forced to the native engine on it, failing with the reason", async () => {
    assert.equal((await requestJson(`${gw.url}/v1/play/strict/index.m3u8`)).status, 503);
    const s = await until("the strict session to fail", async () => {
      const x = await sessionOf(gw.url, admin, "strict");
      return x?.state === "failed" ? x : undefined;
    });
    assert.equal(s.engine, "native");
    assert.match(String(s.last_error), /SegmentList/);
  });

  it("leaves no ffmpeg behind when the session stops", async () => {
    await until("ffmpeg of the session", () => (ffmpegOfGateway().length > 0 ? true : undefined));
    const del = await requestJson(`${gw.url}/v1/admin/sessions/list`, {
      method: "DELETE",
      token: admin,
    });
    assert.equal(del.status, 204);
    await until(
      "ffmpeg to be gone",
      () => (ffmpegOfGateway().length === 0 ? true : undefined),
      15_000,
    );
  });

  it("leaves no ffmpeg behind when the gateway stops", async () => {
    const w = await requestJson(`${gw.url}/v1/admin/channels/list/warmup`, {
      method: "POST",
      token: admin,
    });
    assert.equal(w.status, 202);
    await until("ffmpeg of the warmed-up session", () =>
      ffmpegOfGateway().length > 0 ? true : undefined,
    );
    const pids = ffmpegOfGateway().map((p) => p.pid);
    assert.equal(await gw.stop(), 0);
    const left = allProcs().filter((p) => pids.includes(p.pid) && p.state !== "Z");
    assert.deepEqual(left, []);
  });
});

describe("/readyz follows the compatibility engine's needs (full binary)", () => {
  let gw: GatewayProcess;
  let admin: string;

  before(async () => {
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"] },
      media: { ffmpeg_path: "/nonexistent/ffmpeg" },
      channels: [
        { id: "h", title: "h", ingress: "hls", source_url: "http://127.0.0.1:9/a.m3u8" },
        {
          id: "d",
          title: "d",
          ingress: "dash",
          source_url: "http://127.0.0.1:9/a.mpd",
          engine: "native",
        },
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
  });

  async function put(changes: Record<string, unknown>) {
    const d = await requestJson(`${gw.url}/v1/admin/channels/d`, { token: admin });
    const { play_url: _p, revision: _r, updated_at: _u, ...write } = d.body.channel;
    const r = await requestJson(`${gw.url}/v1/admin/channels/d`, {
      method: "PUT",
      token: admin,
      body: { ...write, ...changes },
    });
    assert.equal(r.status, 200, r.text);
  }

  it("is ready while no DASH channel needs ffmpeg, and not ready once one does", async () => {
    const ready = await requestJson(`${gw.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: "ready" });
    await put({ engine: "ffmpeg" });
    const not = await requestJson(`${gw.url}/readyz`);
    assert.equal(not.status, 503);
    assert.equal(not.body.error.code, "not_ready");
    assert.equal(not.text.includes("/nonexistent"), false, "no path on a public endpoint");
    await put({ disabled: true });
    assert.equal((await requestJson(`${gw.url}/readyz`)).status, 200);
  });
});
