import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { type HlsLiveOrigin, startHlsLiveOrigin } from "../harness/hls-live-origin.js";
import {
  assertH264Aac,
  pcrPids,
  playBesideSecondViewer,
  startStreamTsGateway,
} from "./stream-ts-checks.js";

// Extensions "MPEG-TS output" for an `hls` channel with fMP4 (CMAF) segments: the relay
// fetches each segment once and remuxes it to TS natively. One encoder (loopback).
describe("stream.ts of a CMAF HLS channel (native remux, lite binary)", () => {
  let origin: HlsLiveOrigin;
  let gw: GatewayProcess;
  const stream = `/v1/play/c1/stream.ts`;

  before(async () => {
    origin = await startHlsLiveOrigin({ fmp4: true });
    await origin.waitForSegments(3);
    gw = await startStreamTsGateway("lite", [
      {
        id: "c1",
        title: "c1",
        ingress: "hls",
        source_url: `${origin.url}/master.m3u8`,
        user_agent: "cmaf-out",
      },
    ]);
  });
  after(async () => {
    await gw?.stop();
    await origin?.stop();
  });

  it("decodes in ffmpeg for 20 s with nothing at -loglevel error; each segment fetched once", async () => {
    const v = await playBesideSecondViewer(`${gw.url}${stream}`, {
      seconds: 20,
      joinAfterMs: 3000,
      readMs: 10_000,
    });
    assert.deepEqual([...pcrPids(v.bytes)], [0x100]);
    assertH264Aac(v.bytes);
    const hits = origin.requests("cmaf-out");
    const segments = [...hits].filter(([path]) => path.endsWith(".m4s"));
    assert.ok(segments.length >= 10, `${segments.length} segments fetched`);
    for (const [path, n] of segments) assert.equal(n, 1, `${path} fetched ${n} times`);
    assert.equal(hits.get("/init.mp4"), 1);
  });
});
