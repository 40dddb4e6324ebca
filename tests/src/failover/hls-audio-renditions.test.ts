import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login } from "../harness/http-client.js";
import { uriLines } from "../harness/media-probe.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { assertH264Aac, playBesideSecondViewer, readFor } from "../ts/stream-ts-checks.js";
import { failoverMetric, failoverSession, mediaPlaylist, untilActive } from "./failover-checks.js";
import { type AudioForm, type HlsAudioOrigin, startHlsAudioOrigin } from "./hls-audio-origin.js";

// Issue 35 ("peers that have failover lose audio"): an `hls` channel whose sources carry
// their audio in a separate rendition (`#EXT-X-MEDIA:TYPE=AUDIO`) is published with video
// AND audio in one MPEG-TS program, before and after a switch, for TS, packed-audio and
// CMAF renditions; `stream.ts` of such a channel without fallback sources carries audio
// too. One encoder for the suite (hls-audio-origin.ts).
let origin: HlsAudioOrigin;
let gw: GatewayProcess;
let admin: string;

/** Channel per form: primary `{form}-a`, fallback `{form}-b`; `plain-ts` without fallbacks. */
const FORMS: readonly AudioForm[] = ["ts", "packed", "fmp4"];

before(async () => {
  origin = await startHlsAudioOrigin();
  gw = await startGateway(
    "full",
    {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      media: { failback_sec: 3600 },
      extensions: { ts_output: true },
      channels: [
        ...FORMS.map((form) => ({
          id: form,
          title: `Audio rendition ${form}`,
          ingress: "hls",
          source_url: origin.master(`${form}-a`, form),
          fallback_sources: [{ source_url: origin.master(`${form}-b`, form) }],
        })),
        {
          id: "plain",
          title: "No fallbacks",
          ingress: "hls",
          source_url: origin.master("plain", "ts"),
        },
      ],
    },
    { env: { SVC_LOG_LEVEL: "info" } },
  );
  admin = await login(gw.url, "admin", ADMIN_PASSWORD);
});
after(async () => {
  await gw?.stop();
  await origin?.stop();
});

const play = (id: string) => `${gw.url}/v1/play/${id}/index.m3u8`;
const session = (id: string) => () => failoverSession(gw.url, admin, id);

/** The newest segment the channel's playlist lists once it lists `count`. */
async function newestSegment(id: string, count = 3): Promise<Buffer> {
  const m = await until(`${count} segments of ${id}`, async () => {
    const got = await mediaPlaylist(play(id));
    return uriLines(got.text).length >= count ? got : undefined;
  });
  const uri = new URL(uriLines(m.text).at(-1)!, m.url);
  return Buffer.from(await (await fetch(uri)).arrayBuffer());
}

/** The first segment after the newest `#EXT-X-DISCONTINUITY` (the switch) of channel `id`. */
async function firstAfterSwitch(id: string): Promise<Buffer> {
  const m = await until(`a segment of ${id} after the switch`, async () => {
    const got = await mediaPlaylist(play(id));
    // The tag alone on its line (not EXT-X-DISCONTINUITY-SEQUENCE).
    const parts = got.text.split(/^#EXT-X-DISCONTINUITY\n/m);
    const first = parts.length > 1 ? uriLines(parts.at(-1)!)[0] : undefined;
    return first === undefined ? undefined : new URL(first, got.url);
  });
  return Buffer.from(await (await fetch(m)).arrayBuffer());
}

/**
 * `ffmpeg -i URL -t SECONDS -map 0:a -f framecrc -`: the seconds of audio decoded (the
 * frames' durations summed in the stream's time base) and the exit code.
 */
function decodeAudio(
  url: string,
  seconds: number,
): Promise<{ code: number | null; audioSec: number; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(
      "ffmpeg",
      ["-hide_banner", "-nostdin", "-loglevel", "error", "-i", url, "-t", String(seconds)].concat([
        "-map",
        "0:a",
        "-f",
        "framecrc",
        "-",
      ]),
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let stderr = "";
    p.stdout.on("data", (d) => {
      out += d;
    });
    p.stderr.on("data", (d) => {
      stderr += d;
    });
    p.on("close", (code) => {
      const tb = /^#tb 0: (\d+)\/(\d+)$/m.exec(out);
      let ticks = 0;
      for (const line of out.split("\n")) if (/^0,/.test(line)) ticks += Number(line.split(",")[3]);
      resolve({ code, audioSec: tb ? (ticks * Number(tb[1])) / Number(tb[2]) : 0, stderr });
    });
  });
}

describe("hls sources with a separate audio rendition, under failover (full binary)", () => {
  for (const form of FORMS)
    it(`publishes video and audio from ${form} renditions (ffprobe of a live/ segment)`, async () => {
      assertH264Aac(await newestSegment(form), 1);
    });

  it("keeps the audio across a switch: ffmpeg decodes audio after the primary answers 404", async () => {
    const player = decodeAudio(play("ts"), 20);
    await sleep(5_000);
    origin.set("ts-a", 404);
    const s = await untilActive(session("ts"), 1, "the switch to source 1");
    assert.equal(s.failovers, 1);
    const played = await player;
    assert.equal(played.code, 0, played.stderr);
    // 20 s read, the switch at about 5 s: most of the audio comes after it.
    assert.ok(played.audioSec >= 15, `${played.audioSec} s of audio decoded`);
    assert.equal(await failoverMetric(gw.url, "http_error"), 1);
    // The fallback's first segment carries its audio.
    assertH264Aac(await firstAfterSwitch("ts"), 10);
  });

  it("serves stream.ts with video and audio, reading on across a switch (CMAF renditions)", async () => {
    await newestSegment("fmp4");
    const reading = readFor(`${gw.url}/v1/play/fmp4/stream.ts`, 9_000);
    await sleep(3_000);
    origin.set("fmp4-a", 500);
    const read = await reading;
    assert.equal(read.status, 200);
    assert.equal((await untilActive(session("fmp4"), 1, "the switch of fmp4")).failovers, 1);
    assertH264Aac(read.bytes, 10);
    assertH264Aac(await firstAfterSwitch("fmp4"), 10);
  });

  it("fails a source over when only its audio playlist fails (packed audio)", async () => {
    await newestSegment("packed");
    const start = await session("packed")();
    const log = (gw.stderr() + gw.stdout()).split("\n").filter((l) => /source f/.test(l));
    assert.deepEqual([start.active_source, start.failovers], [0, 0], log.join("\n"));
    const before = origin.audioPlaylistRequests("packed-b");
    origin.set("packed-a", "audio-404");
    await untilActive(session("packed"), 1, "the switch away from a source without audio");
    // /v1/status names the fallback as the switch happens; its connection opens after.
    await until("the fallback's audio playlist read", async () =>
      origin.audioPlaylistRequests("packed-b") > before ? true : undefined,
    );
    assertH264Aac(await firstAfterSwitch("packed"), 10);
  });

  it("carries the audio rendition in stream.ts of a channel without fallback sources", async () => {
    // ffmpeg decodes 15 s with nothing at -loglevel error beside a second viewer (PAT
    // first, no continuity error), whose bytes hold H.264 and AAC.
    const read = await playBesideSecondViewer(`${gw.url}/v1/play/plain/stream.ts`, {
      seconds: 15,
      joinAfterMs: 3_000,
      readMs: 6_000,
    });
    assertH264Aac(read.bytes, 10);
    // Its index.m3u8 keeps the rewrite path: the source's audio rendition, signed.
    const master = await (await fetch(play("plain"))).text();
    assert.match(master, /#EXT-X-MEDIA:TYPE=AUDIO.*URI="([^"]*\/)?u\//);
  });
});
