import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { channelsFromConfig, createStaticCatalog } from "@svc/core/catalog";
import { type GatewayConfig, parseConfig, readEnvironment } from "@svc/core/config";
import { type Egress, egressFromConfig } from "@svc/core/egress";
import {
  createSessionManager,
  type SessionManager,
  type SessionStatus,
} from "@svc/playback/dash-engine";
import { stringify } from "yaml";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { until } from "../harness/until.js";
import { hashFor } from "../harness/users.js";

// In-process: the operations the admin API calls (warmup, stop, list) have no route in
// this build yet, so the session manager is driven directly over real egress, a real
// loopback origin and a live ffmpeg source.

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const SEGMENT_BASE_MPD = `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
  <Period id="p0"><AdaptationSet contentType="video" mimeType="video/mp4">
    <Representation id="v" bandwidth="500000" width="640" height="360" codecs="avc1.42c01e">
      <BaseURL>v.mp4</BaseURL><SegmentBase indexRange="800-900"/>
    </Representation>
  </AdaptationSet></Period>
</MPD>`;

function configFor(mpdUrl: string, otherUrl: string, lowLatency = true): GatewayConfig {
  const dash = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    title: id,
    ingress: "dash",
    source_url: mpdUrl,
    ...extra,
  });
  return parseConfig(
    stringify({
      auth: { users: [{ username: "a", password_hash: hashFor("password-1"), role: "admin" }] },
      server: { data_dir: "/nonexistent-unused" },
      security: { allowed_hosts: ["127.0.0.1"] },
      media: { idle_stop_sec: 600, low_latency: lowLatency },
      channels: [
        dash("d1", { preferred_audio_languages: ["en"] }),
        dash("d2"),
        dash("forced-ffmpeg", { engine: "ffmpeg" }),
        dash("segment-base", { source_url: otherUrl }),
        { id: "h1", title: "h1", ingress: "hls", source_url: "http://127.0.0.1:9/x.m3u8" },
      ],
    }),
    readEnvironment(),
  );
}

describe("session manager (warmup, status, stop, engines, stall, bounded resources)", () => {
  let src: DashLiveSource;
  let origin: Server;
  let egress: Egress;
  let sessions: SessionManager;
  const status = (id: string): SessionStatus | undefined =>
    sessions.list().find((s) => s.channel_id === id);

  before(async () => {
    src = await startDashLiveSource();
    origin = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/dash+xml" }).end(SEGMENT_BASE_MPD);
    });
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    const other = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/vod.mpd`;
    await src.waitForSegments(3);
    const config = configFor(src.mpdUrl, other);
    egress = egressFromConfig(config);
    sessions = createSessionManager({
      config,
      catalog: createStaticCatalog(channelsFromConfig(config.channels), config.upstreams),
      egress,
      stallTimings: { stallAfterMs: 3_000, restartStalledAfterMs: 600_000 },
    });
  });
  after(async () => {
    await sessions?.close();
    await egress?.close();
    await new Promise((r) => origin?.close(r));
    await src?.stop();
  });

  it("warms up a channel: 202-shaped {state: starting}, then running with the status fields", async () => {
    assert.deepEqual(sessions.warmup("d1"), { ok: true, state: "starting" });
    const s0 = status("d1")!;
    assert.equal(s0.state, "starting");
    assert.equal(s0.mode, "on_demand");
    assert.equal(s0.engine, "native");
    assert.equal(s0.fallback_reason, null);
    assert.equal(s0.errors, 0);
    assert.equal(s0.last_error, null);
    assert.match(s0.started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(s0.last_touch, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const s = await until("running", () =>
      status("d1")?.state === "running" ? status("d1") : undefined,
    );
    assert.equal(s.pack_mode, "ll-hls");
    assert.match(s.generation ?? "", /^[0-9a-z]+$/);
    // Publication goes on after the state turns running; wait for it rather than
    // assume a count at that instant (a slow host publishes the first window later).
    const p = await until("six published segments", () => {
      const counters = status("d1")?.packager;
      return counters && counters.segments_published >= 6 ? counters : undefined;
    });
    assert.ok(p.segments_published >= 6, "three segments for each of video and one audio");
    assert.ok(p.parts_published > p.segments_published);
    assert.ok(p.bytes_in > 0);
    assert.ok(p.media_sequence >= 1);
    assert.ok(p.live_edge_delay_ms >= 0);
    assert.ok(p.mpd_refreshes >= 1);
    assert.ok(p.bytes_held > 0);
    assert.deepEqual(sessions.warmup("d1"), { ok: true, state: "running" });
  });

  it("refuses warmup of unknown and non-DASH channels", () => {
    assert.deepEqual(sessions.warmup("nope"), {
      ok: false,
      code: "not_found",
      message: "channel not found",
    });
    const h = sessions.warmup("h1");
    assert.equal(h.ok, false);
    assert.equal(h.ok ? "" : h.code, "conflict");
  });

  it("stops a session (DELETE …/sessions/{id}) and says when there is none", async () => {
    assert.equal(await sessions.stop("d1"), true);
    assert.equal(status("d1"), undefined);
    assert.equal(await sessions.stop("d1"), false);
  });

  it("reports the engine choice: ffmpeg requested, or auto falling back with a reason", async () => {
    sessions.warmup("forced-ffmpeg");
    sessions.warmup("segment-base");
    const forced = await until("failed", () =>
      status("forced-ffmpeg")?.state === "failed" ? status("forced-ffmpeg") : undefined,
    );
    assert.equal(forced.engine, "ffmpeg");
    assert.equal(forced.fallback_reason, null);
    assert.match(forced.last_error ?? "", /ffmpeg compatibility engine is not available/);
    const fallback = await until("failed", () =>
      status("segment-base")?.state === "failed" ? status("segment-base") : undefined,
    );
    assert.equal(fallback.engine, "ffmpeg");
    assert.match(fallback.fallback_reason ?? "", /SegmentBase/);
    assert.ok(fallback.errors >= 1);
    await sessions.stop("forced-ffmpeg");
    await sessions.stop("segment-base");
  });

  it("starts and stops 200 times without growth in handles or memory", {
    timeout: 120_000,
  }, async () => {
    const cycle = async (i: number) => {
      sessions.warmup("d2");
      // Stop in different phases: before the MPD arrives, during segment fetches, once published.
      if (i % 20 === 0)
        await until("running", () => (status("d2")?.state === "running" ? 1 : undefined));
      else await new Promise((r) => setTimeout(r, (i % 7) * 15));
      assert.equal(await sessions.stop("d2"), true);
    };
    for (let i = 0; i < 20; i++) await cycle(i);
    await new Promise((r) => setTimeout(r, 300));
    gc();
    // Idle keep-alive sockets of the egress pool come and go with timing; count the rest.
    const handles = () => process.getActiveResourcesInfo().filter((r) => r !== "TCPSocketWrap");
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === "TCPSocketWrap");
    const handles0 = handles().length;
    const heap0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200; i++) await cycle(i);
    await new Promise((r) => setTimeout(r, 300));
    gc();
    const handles1 = handles().length;
    const heap1 = process.memoryUsage().heapUsed;
    assert.equal(sessions.list().length, 0);
    assert.ok(handles1 <= handles0 + 2, `handles ${handles0} → ${handles1}: ${handles()}`);
    assert.ok(sockets().length <= 12, `sockets: ${sockets().length}`);
    assert.ok(heap1 - heap0 < 16 * 1024 * 1024, `heap ${heap0} → ${heap1}`);
  });

  it("publishes plain HLS (no parts) when media.low_latency is off", async () => {
    const config = configFor(src.mpdUrl, "http://127.0.0.1:9/unused.mpd", false);
    const plain = createSessionManager({
      config,
      catalog: createStaticCatalog(channelsFromConfig(config.channels), config.upstreams),
      egress,
    });
    try {
      plain.warmup("d1");
      const s = await until("running", () => {
        const x = plain.list()[0];
        return x?.state === "running" ? x : undefined;
      });
      assert.equal(s.pack_mode, "hls");
    } finally {
      await plain.close();
    }
  });

  it("moves a session whose source stops delivering to stalled, keeping its window", async () => {
    sessions.warmup("d2");
    await until("running", () => (status("d2")?.state === "running" ? 1 : undefined));
    await src.killEncoder();
    const s = await until("stalled", () =>
      status("d2")?.state === "stalled" ? status("d2") : undefined,
    );
    assert.equal(s.last_error, "no new media from the source");
    assert.ok((s.packager?.bytes_held ?? 0) > 0);
    assert.ok((s.packager?.retries ?? 0) >= 0);
  });
});
