import { after, before, describe } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { remuxedChannelCases, startStreamTsGateway } from "./stream-ts-checks.js";

const KID = "9eb4050de44b4802932e27d75083e266";
const KEY = "166634c675823c235a4a9446fad52e4d";

// Extensions "MPEG-TS output" for a ClearKey (cenc) live DASH channel: the native engine
// decrypts, its fMP4 is remuxed to TS. One encoder for the suite (H.264 + AAC, loopback).
describe("stream.ts of a ClearKey DASH channel (decrypted, remuxed; full binary)", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  const stream = (id: string) => `${gw.url}/v1/play/${id}/stream.ts`;

  before(async () => {
    src = await startDashLiveSource({
      heights: [180],
      languages: ["eng"],
      encrypt: { kid: KID, key: KEY },
    });
    await src.waitForSegments(3);
    gw = await startStreamTsGateway("full", [
      { id: "d1", title: "d1", ingress: "dash", source_url: src.mpdUrl, keys: { [KID]: KEY } },
    ]);
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  remuxedChannelCases(() => stream("d1"));
});
