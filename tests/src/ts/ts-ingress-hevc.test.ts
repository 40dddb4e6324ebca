import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { playWithFfmpeg } from "../harness/media-probe.js";
import { startTsLiveOrigin, type TsLiveOrigin } from "../harness/ts-live-origin.js";
import { authSection } from "../harness/users.js";
import { entries, get, getMedia, probeCodecs } from "./ts-playlists.js";

// Issue 33: an H.265 + AC-3 source (one encoder for the suite), through both engines.
let origin: TsLiveOrigin;
let gw: GatewayProcess;
before(async () => {
  origin = await startTsLiveOrigin({ video: "h265", audio: "ac3" });
  gw = await startGateway("lite", {
    auth: authSection(),
    security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
    extensions: { ts_output: true },
    channels: [
      { id: "hv", title: "hv", ingress: "ts", source_url: `${origin.url}/live.ts` },
      {
        id: "hvf",
        title: "hvf",
        ingress: "ts",
        engine: "ffmpeg",
        source_url: `${origin.url}/live.ts`,
      },
      {
        id: "page",
        title: "page",
        ingress: "ts",
        engine: "ffmpeg",
        source_url: `${origin.url}/page.ts`,
      },
    ],
  });
});
after(async () => {
  await gw?.stop();
  await origin?.stop();
});

describe("ingress: ts with H.265 and AC-3 (native engine)", () => {
  const index = () => `${gw.url}/v1/play/hv/index.m3u8`;

  it("names hvc1 and ac-3 with the picture size in the master playlist", async () => {
    const r = await get(index());
    assert.equal(r.status, 200, r.text);
    assert.match(
      r.text,
      /#EXT-X-STREAM-INF:BANDWIDTH=\d+,CODECS="hvc1\.1\.6\.L\d+(\.[0-9A-F]{1,2})*,ac-3",RESOLUTION=320x240\n/,
    );
  });

  it("cuts at IRAP pictures: 2 s segments that ffprobe reads as hevc and ac3", async () => {
    const media = await getMedia(index());
    assert.equal(media.status, 200, media.text);
    const list = entries(media.text);
    assert.ok(list.length >= 1);
    // keyint 25 at 25 fps: an IRAP every second, cut at the first one at or after 2 s.
    for (const e of list) assert.ok(Math.abs(e.duration - 2) < 0.05, `EXTINF ${e.duration}`);
    assert.deepEqual(probeCodecs(list.at(-1)!.uri), ["ac3", "hevc"]);
    assert.deepEqual(probeCodecs(index()), ["ac3", "hevc"]);
  });

  it("plays 6 s in ffmpeg through index.m3u8", async () => {
    const player = await playWithFfmpeg(index(), 6);
    assert.equal(player.code, 0, player.stderr);
    assert.equal(player.stderr, "");
  });
});

describe("ingress: ts on engine ffmpeg", () => {
  it("plays the same source through the compatibility engine, as TS segments", async () => {
    const url = `${gw.url}/v1/play/hvf/index.m3u8`;
    const master = await get(url);
    assert.equal(master.status, 200, master.text);
    assert.deepEqual(probeCodecs(url), ["ac3", "hevc"]);
    // ffmpeg's segment files (r{run}-{n}.ts), not the native engine's s-{msn}.ts.
    const media = await getMedia(url);
    assert.equal(media.status, 200, media.text);
    const list = entries(media.text, media.url);
    assert.ok(list.length >= 1, media.text);
    for (const e of list) assert.match(new URL(e.uri).pathname, /\/live\/r\d+-\d+\.ts$/);
    const player = await playWithFfmpeg(url, 6);
    assert.equal(player.code, 0, player.stderr);
    const stream = await requestJson(`${gw.url}/v1/play/hvf/stream.ts`);
    assert.equal(stream.status, 404);
    assert.match(stream.body.error.message, /engine ffmpeg/);
  });

  it("answers 502 naming an HTML page, before ffmpeg runs", async () => {
    const r = await requestJson(`${gw.url}/v1/play/page/index.m3u8`);
    assert.equal(r.status, 502, r.text);
    assert.equal(r.body.error.code, "upstream_error");
    assert.match(r.body.error.message, /not MPEG-TS.*HTML page/);
  });
});
