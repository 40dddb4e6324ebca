import { after, before, describe } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { remuxedChannelCases, startStreamTsGateway } from "./stream-ts-checks.js";

// Extensions "MPEG-TS output" for a clear live DASH channel: the native engine's fMP4
// remuxed to TS. One encoder for the suite (H.264 + AAC, loopback).
describe("stream.ts of a DASH channel (native remux, lite binary)", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  const stream = (id: string) => `${gw.url}/v1/play/${id}/stream.ts`;

  before(async () => {
    src = await startDashLiveSource({ heights: [180], languages: ["eng"] });
    await src.waitForSegments(3);
    gw = await startStreamTsGateway("lite", [
      { id: "d1", title: "d1", ingress: "dash", source_url: src.mpdUrl },
    ]);
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  remuxedChannelCases(() => stream("d1"));
});
