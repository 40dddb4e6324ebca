import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { playWithFfmpeg, tagUris, uriLines } from "../harness/media-probe.js";
import { authSection } from "../harness/users.js";

// Issue 12 item 10 (compatibility engine): index.m3u8 is a master playlist (spec "Playback"
// 1) with CODECS and RESOLUTION; prefer_height picks the video, every preferred audio
// language is its own EXT-X-MEDIA rendition; every URI is under live/ and carries `g`.
const run = promisify(execFile);

async function probe(url: string): Promise<{ codec_type: string; height?: number }[]> {
  const { stdout } = await run(
    "ffprobe",
    ["-v", "error", "-show_entries", "stream=codec_type,height", "-of", "json", url],
    { timeout: 30_000 },
  );
  return (JSON.parse(stdout) as { streams: { codec_type: string; height?: number }[] }).streams;
}

describe("ffmpeg compatibility engine: master playlist, prefer_height, audio renditions", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;

  before(async () => {
    src = await startDashLiveSource({
      heights: [360, 180],
      languages: ["eng", "fra"],
      fragDurationSec: 0,
    });
    await src.waitForSegments(3);
    const channel = (id: string, extra: Record<string, unknown>) => ({
      id,
      title: id,
      ingress: "dash",
      engine: "ffmpeg",
      source_url: src.mpdUrl,
      ...extra,
    });
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      channels: [
        channel("pref", { prefer_height: 180, preferred_audio_languages: ["fr", "en"] }),
        channel("plain", {}),
      ],
    });
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("prefer_height and two languages: one variant with CODECS/RESOLUTION, two audio renditions", async () => {
    const res = await fetch(`${gw.url}/v1/play/pref/index.m3u8`);
    assert.equal(res.status, 200);
    const master = await res.text();
    const inf = master.split("\n").filter((l) => l.startsWith("#EXT-X-STREAM-INF:"));
    assert.equal(inf.length, 1, master);
    assert.match(inf[0]!, /CODECS="avc1\.[0-9a-fA-F]{6},mp4a\.40\.2"/);
    assert.match(inf[0]!, /RESOLUTION=320x180/);
    assert.match(inf[0]!, /BANDWIDTH=\d+/);
    assert.match(inf[0]!, /AUDIO="audio"/);
    const media = master.split("\n").filter((l) => l.startsWith("#EXT-X-MEDIA:"));
    assert.equal(media.length, 2, master);
    assert.match(media[0]!, /TYPE=AUDIO,GROUP-ID="audio",NAME="French",LANGUAGE="fr",DEFAULT=YES/);
    assert.match(media[1]!, /LANGUAGE="en",DEFAULT=NO/);
    const uris = [...uriLines(master), ...tagUris(master, "EXT-X-MEDIA")];
    assert.equal(uris.length, 3);
    for (const u of uris) assert.match(u, /^live\/media-\d\.m3u8\?g=[0-9a-z]+$/);

    // Each media playlist holds what the master says: the 180-line video, then audio only.
    const base = `${gw.url}/v1/play/pref/`;
    const [video, french, english] = uris.map((u) => new URL(u, base).href) as [
      string,
      string,
      string,
    ];
    assert.deepEqual(await probe(video), [{ codec_type: "video", height: 180 }]);
    for (const audio of [french, english])
      assert.deepEqual(await probe(audio), [{ codec_type: "audio" }]);
    const videoPlaylist = await (await fetch(video)).text();
    assert.match(tagUris(videoPlaylist, "EXT-X-MAP")[0]!, /^init-r0-0\.mp4\?g=/);
    assert.match(uriLines(videoPlaylist).at(-1)!, /^r0-0-\d+\.m4s\?g=/);

    // An independent player plays the master (video plus the default audio).
    const played = await playWithFfmpeg(`${gw.url}/v1/play/pref/index.m3u8`, 4);
    assert.equal(played.code, 0, played.stderr);
  });

  it("without preferences: the largest video and the first audio only", async () => {
    const master = await (await fetch(`${gw.url}/v1/play/plain/index.m3u8`)).text();
    assert.match(master, /#EXT-X-STREAM-INF:.*RESOLUTION=640x360/);
    const media = master.split("\n").filter((l) => l.startsWith("#EXT-X-MEDIA:"));
    assert.equal(media.length, 1, master);
    assert.match(media[0]!, /LANGUAGE="en",DEFAULT=YES/);
  });
});
