import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RelayFetch } from "../../hls/egress-fetch.js";
import type { MediaSegment } from "../../ts/hls-playlist-read.js";
import { TsMuxer } from "../../ts/ts-muxer.js";
import { HlsAudioRendition } from "./hls-audio-rendition.js";

/** One ADTS frame (AAC LC, 48 kHz, stereo). */
const FRAME = Buffer.concat([
  Buffer.from([0xff, 0xf1, 0x4c, 0x80, 0x0e, 0x1f, 0xfc]),
  Buffer.alloc(105, 0x21),
]);

/** An audio-only TS segment `msn` of `seconds`: 1024-sample frames from `msn * seconds`. */
function audioSegment(msn: number, seconds: number): Buffer {
  const mux = new TsMuxer({ audio: "aac" });
  const frames = Math.round((seconds * 48_000) / 1024);
  const out: Buffer[] = [];
  for (let i = 0; i < frames; i++) out.push(...mux.audio(FRAME, msn * seconds * 90_000 + i * 1920));
  return Buffer.concat(out);
}

function playlist(first: number, count: number, seconds: number, end = false): string {
  const lines = ["#EXTM3U", `#EXT-X-TARGETDURATION:${seconds}`, `#EXT-X-MEDIA-SEQUENCE:${first}`];
  for (let m = first; m < first + count; m++) lines.push(`#EXTINF:${seconds}.0,`, `a-${m}.ts`);
  if (end) lines.push("#EXT-X-ENDLIST");
  return `${lines.join("\n")}\n`;
}

/** The origin as a RelayFetch over literal bodies (the egress is not what is tested). */
function rendition(files: Map<string, Buffer>): HlsAudioRendition {
  const fetch: RelayFetch = async (url) => {
    const body = files.get(new URL(url).pathname);
    return body ? { ok: true, bytes: body, url } : { ok: false, message: "upstream answered 404" };
  };
  return new HlsAudioRendition({
    url: "http://origin.test/a.m3u8",
    fetch,
    maxPlaylistBytes: 1 << 20,
    segmentBytes: async (s: MediaSegment) => {
      const r = await fetch(s.uri, 1 << 20);
      return r.ok ? r.bytes : `segment ${s.msn}: ${r.message}`;
    },
  });
}

describe("HlsAudioRendition (which audio segments go with the video)", () => {
  it("starts at the audio segment nearest the video's start from the live edge", async () => {
    // 2 s audio segments 5-7; the video starts 1 s before its edge: segment 7 (starts 2 s
    // before the audio's edge) is nearest, and covers the video's first second.
    const files = new Map<string, Buffer>([["/a.m3u8", Buffer.from(playlist(5, 3, 2))]]);
    for (let m = 5; m < 8; m++) files.set(`/a-${m}.ts`, audioSegment(m, 2));
    const r = rendition(files);
    assert.deepEqual(await r.start(-1), { ok: true, units: [] });
    const took = await r.take(1);
    assert.ok(took.ok);
    assert.equal(took.units[0]?.pts, 7 * 2 * 90_000);
    assert.equal(took.units.length, Math.round((2 * 48_000) / 1024));
    assert.equal(r.entry?.streamType, 0x0f);
    // Already covered up to 1 s of video: nothing more to fetch.
    const none = await r.take(1);
    assert.deepEqual(none.ok && none.units.length, 0);
  });

  it("fails with failover's reasons: a segment's 404, a playlist that ends", async () => {
    const files = new Map<string, Buffer>([["/a.m3u8", Buffer.from(playlist(1, 2, 1))]]);
    const r = rendition(files);
    assert.ok((await r.start(-1)).ok);
    const failed = await r.take(1);
    assert.deepEqual(failed, {
      ok: false,
      why: "audio segment 2: upstream answered 404",
      reason: "http_error",
    });
    files.set("/a.m3u8", Buffer.from(playlist(1, 2, 1, true)));
    const ended = rendition(files);
    assert.deepEqual(await ended.start(-1), {
      ok: false,
      why: "the audio playlist ended",
      reason: "dropped",
    });
    const gone = rendition(new Map());
    const refused = await gone.start(-1);
    assert.equal(!refused.ok && refused.reason, "http_error");
  });
});
