import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { playWithFfmpeg } from "../harness/media-probe.js";
import { authSection } from "../harness/users.js";
import { continuityErrors, pcrPids, pidAt, probeTs, readFor } from "./stream-ts-checks.js";

const KID = "9eb4050de44b4802932e27d75083e266";
const KEY = "166634c675823c235a4a9446fad52e4d";

// Extensions "MPEG-TS output" for a ClearKey (cenc) live DASH channel: the native engine decrypts, its's fMP4
// fMP4 remuxed to TS. One encoder for the suite (H.264 + AAC, loopback).
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
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      extensions: { ts_output: true },
      channels: [
        { id: "d1", title: "d1", ingress: "dash", source_url: src.mpdUrl, keys: { [KID]: KEY } },
      ],
    });
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("decodes in ffmpeg for 30 s with nothing at -loglevel error, beside a second viewer", async () => {
    const second = (async () => {
      await new Promise((r) => setTimeout(r, 4000));
      return readFor(stream("d1"), 12_000);
    })();
    const player = await playWithFfmpeg(stream("d1"), 30);
    assert.equal(player.code, 0, player.stderr);
    assert.equal(player.stderr, "", "ffmpeg reports no error (continuity, PES, decode)");
    const v = await second;
    assert.equal(v.status, 200);
    assert.equal(v.type, "video/mp2t");
    assert.ok(v.bytes.length > 100 * 188, `read ${v.bytes.length} bytes`);
    assert.equal(pidAt(v.bytes, 0), 0, "a viewer starts with PAT");
    assert.equal(pidAt(v.bytes, 1), 0x1000, "then PMT");
    assert.equal(continuityErrors(v.bytes), 0);
    assert.deepEqual([...pcrPids(v.bytes)], [0x100], "PCR on the video PID");
  });

  it("ffprobe finds H.264 and AAC and decodes their frames", async () => {
    const v = await readFor(stream("d1"), 6000);
    const probed = probeTs(v.bytes);
    assert.deepEqual(
      probed.streams.map((s) => [s.codec_type, s.codec_name]),
      [
        ["video", "h264"],
        ["audio", "aac"],
      ],
      probed.errors,
    );
    for (const s of probed.streams) assert.ok(Number(s.nb_read_frames) > 10, JSON.stringify(s));
  });

  it("HEAD answers the headers only", async () => {
    const r = await fetch(stream("d1"), { method: "HEAD" });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "video/mp2t");
    assert.equal((await r.arrayBuffer()).byteLength, 0);
  });
});
