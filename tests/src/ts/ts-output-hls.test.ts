import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { type HlsLiveOrigin, startHlsLiveOrigin } from "../harness/hls-live-origin.js";
import {
  assertH264Aac,
  continuityErrors,
  playBesideSecondViewer,
  readFor,
  startStreamTsGateway,
} from "./stream-ts-checks.js";

// Extensions "MPEG-TS output" for an `hls` channel with MPEG-TS segments: one relay per
// channel concatenates the segments. One encoder for the suite (loopback).
describe("stream.ts of an HLS channel with TS segments (lite binary)", () => {
  let origin: HlsLiveOrigin;
  let gw: GatewayProcess;
  const stream = (id: string) => `${gw.url}/v1/play/${id}/stream.ts`;
  const channel = (id: string, path: string) => ({
    id,
    title: id,
    ingress: "hls",
    source_url: `${origin.url}${path}`,
    user_agent: `hls-out-${id}`,
  });

  before(async () => {
    origin = await startHlsLiveOrigin();
    await origin.waitForSegments(3);
    gw = await startStreamTsGateway("lite", [
      channel("h1", "/master.m3u8"),
      channel("h2", "/index.m3u8"),
      channel("gone", "/nothing.m3u8"),
      { ...channel("one", "/index.m3u8"), max_viewers: 1 },
    ]);
  });
  after(async () => {
    await gw?.stop();
    await origin?.stop();
  });

  it("decodes in ffmpeg for 30 s with nothing at -loglevel error; two viewers cost each segment one fetch", async () => {
    const v = await playBesideSecondViewer(stream("h1"), {
      seconds: 30,
      joinAfterMs: 3000,
      readMs: 20_000,
    });
    assert.ok(v.bytes.length > 100 * 188, `read ${v.bytes.length} bytes`);
    const hits = origin.requests("hls-out-h1");
    const segments = [...hits].filter(([path]) => path.endsWith(".ts"));
    assert.ok(segments.length >= 20, `${segments.length} segments fetched`);
    for (const [path, n] of segments) assert.equal(n, 1, `${path} fetched ${n} times`);
    assert.equal(hits.get("/master.m3u8"), 1);
  });

  it("ffprobe finds H.264 and AAC; a media playlist source works too", async () => {
    const v = await readFor(stream("h2"), 5000);
    assert.equal(v.status, 200);
    assertH264Aac(v.bytes);
  });

  it("a viewer holds a max_viewers seat while it reads", async () => {
    const first = readFor(stream("one"), 6000);
    await new Promise((r) => setTimeout(r, 3000));
    const second = await fetch(stream("one"));
    assert.equal(second.status, 429);
    const body = (await second.json()) as { error: { code: string } };
    assert.equal(body.error.code, "too_many_requests");
    const v = await first;
    assert.equal(v.status, 200);
    assert.equal(continuityErrors(v.bytes), 0);
  });

  it("a source that fails answers 502 naming why", async () => {
    const r = await fetch(stream("gone"));
    assert.equal(r.status, 502);
    const body = (await r.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "upstream_error");
    assert.match(body.error.message, /upstream answered 404/);
  });
});
