import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { type HlsLiveOrigin, startHlsLiveOrigin } from "../harness/hls-live-origin.js";
import { playBesideSecondViewer, startStreamTsGateway } from "./stream-ts-checks.js";

/** 16 characters: ffmpeg encrypts with these 16 bytes. */
const KEY = "k3y-for-tests-01";

// Extensions "MPEG-TS output" for an `hls` channel with AES-128 segments: the relay
// fetches the key once and decrypts. One encoder (loopback).
describe("stream.ts of an AES-128 HLS channel (lite binary)", () => {
  let origin: HlsLiveOrigin;
  let gw: GatewayProcess;

  before(async () => {
    origin = await startHlsLiveOrigin({ aesKey: KEY });
    await origin.waitForSegments(3);
    gw = await startStreamTsGateway("lite", [
      {
        id: "aes",
        title: "aes",
        ingress: "hls",
        source_url: `${origin.url}/index.m3u8`,
        user_agent: "aes-out",
      },
    ]);
  });
  after(async () => {
    await gw?.stop();
    await origin?.stop();
  });

  it("decrypts: ffmpeg decodes 15 s with nothing at -loglevel error; the key fetched once", async () => {
    const url = `${gw.url}/v1/play/aes/stream.ts`;
    await playBesideSecondViewer(url, { seconds: 15, joinAfterMs: 2000, readMs: 6000 });
    assert.equal(origin.requests("aes-out").get("/key.bin"), 1);
  });
});
