import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { type HlsLiveOrigin, startHlsLiveOrigin } from "../harness/hls-live-origin.js";
import { playWithFfmpeg } from "../harness/media-probe.js";
import { authSection } from "../harness/users.js";
import { continuityErrors, pcrPids, pidAt, probeTs, readFor } from "./stream-ts-checks.js";

// Extensions "MPEG-TS output" for an `hls` channel with fMP4 (CMAF) segments: the relay
// fetches each segment once and remuxes it to TS natively. One encoder (loopback).
describe("stream.ts of a CMAF HLS channel (native remux, lite binary)", () => {
  let origin: HlsLiveOrigin;
  let gw: GatewayProcess;
  const stream = `/v1/play/c1/stream.ts`;

  before(async () => {
    origin = await startHlsLiveOrigin({ fmp4: true });
    await origin.waitForSegments(3);
    gw = await startGateway("lite", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      extensions: { ts_output: true },
      channels: [
        {
          id: "c1",
          title: "c1",
          ingress: "hls",
          source_url: `${origin.url}/master.m3u8`,
          user_agent: "cmaf-out",
        },
      ],
    });
  });
  after(async () => {
    await gw?.stop();
    await origin?.stop();
  });

  it("decodes in ffmpeg for 20 s with nothing at -loglevel error; each segment fetched once", async () => {
    const second = (async () => {
      await new Promise((r) => setTimeout(r, 3000));
      return readFor(`${gw.url}${stream}`, 10_000);
    })();
    const player = await playWithFfmpeg(`${gw.url}${stream}`, 20);
    assert.equal(player.code, 0, player.stderr);
    assert.equal(player.stderr, "", "ffmpeg reports no error (continuity, PES, decode)");
    const v = await second;
    assert.equal(v.status, 200);
    assert.equal(pidAt(v.bytes, 0), 0, "PAT first");
    assert.equal(continuityErrors(v.bytes), 0);
    assert.deepEqual([...pcrPids(v.bytes)], [0x100]);
    const probed = probeTs(v.bytes);
    assert.deepEqual(
      probed.streams.map((s) => [s.codec_type, s.codec_name]),
      [
        ["video", "h264"],
        ["audio", "aac"],
      ],
      probed.errors,
    );
    const hits = origin.requests("cmaf-out");
    const segments = [...hits].filter(([path]) => path.endsWith(".m4s"));
    assert.ok(segments.length >= 10, `${segments.length} segments fetched`);
    for (const [path, n] of segments) assert.equal(n, 1, `${path} fetched ${n} times`);
    assert.equal(hits.get("/init.mp4"), 1);
  });
});
