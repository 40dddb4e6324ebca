import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { playWithFfmpeg, uriLines } from "../harness/media-probe.js";
import { ADMIN_PASSWORD, authSection, VIEWER_PASSWORD } from "../harness/users.js";

const IDLE_STOP_SEC = 2;

describe("DASH sessions through the full binary (on demand, autostart, idle stop, generations)", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  const dash = (id: string, extra: Record<string, unknown>) => ({
    id,
    title: id,
    ingress: "dash",
    source_url: "",
    user_agent: `agent-${id}`,
    ...extra,
  });

  before(async () => {
    src = await startDashLiveSource({ heights: [360], languages: ["eng"] });
    await src.waitForSegments(3);
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
      media: { idle_stop_sec: IDLE_STOP_SEC },
      channels: [
        dash("od", { source_url: src.mpdUrl }),
        dash("always", { source_url: src.mpdUrl, autostart: true, on_demand: false }),
        dash("manual", { source_url: src.mpdUrl, on_demand: false }),
        // Loopback but not in security.allowed_hosts: the egress guard refuses it.
        dash("refused", { source_url: "http://127.0.0.2:9/live.mpd" }),
      ],
    });
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("starts an autostart channel at boot, before any play request", async () => {
    const deadline = Date.now() + 15_000;
    while (!src.requests.some((r) => r.headers["user-agent"] === "agent-always")) {
      assert.ok(Date.now() < deadline, "the autostart channel never fetched its MPD");
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await fetch(`${gw.url}/v1/play/always/index.m3u8`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /#EXT-X-STREAM-INF:/);
  });

  it("does not start a channel that is neither on demand nor autostart", async () => {
    const r = await requestJson(`${gw.url}/v1/play/manual/index.m3u8`);
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, "not_ready");
    assert.equal(
      src.requests.some((x) => x.headers["user-agent"] === "agent-manual"),
      false,
    );
  });

  it("answers 403 forbidden for a channel whose source the egress guard refuses", async () => {
    // Issue 30 item 10: a refusal fails every retry the same way, so the player is told
    // why (no Retry-After) instead of a not_ready it would retry.
    const r = await requestJson(`${gw.url}/v1/play/refused/index.m3u8`);
    assert.equal(r.status, 403);
    assert.equal(r.body.error.code, "forbidden");
    assert.equal(r.headers.get("retry-after"), null);
  });

  it("plays 10 s with ffmpeg through the full binary", async () => {
    const r = await playWithFfmpeg(`${gw.url}/v1/play/od/index.m3u8`, 10);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
  });

  it("stops an idle on-demand session; its generation's files then redirect or are gone", async () => {
    const master = await (await fetch(`${gw.url}/v1/play/od/index.m3u8`)).text();
    const playlistUrl = uriLines(master)[0]!;
    const g1 = new URL(playlistUrl).searchParams.get("g")!;
    const media = await (await fetch(playlistUrl)).text();
    const segment = new URL(uriLines(media).at(-1)!, playlistUrl).href;
    assert.equal((await fetch(segment)).status, 200);
    // No viewer request for longer than media.idle_stop_sec (+ the 1 s manager tick).
    await new Promise((r) => setTimeout(r, (IDLE_STOP_SEC + 2.5) * 1000));
    const gone = await requestJson(segment);
    assert.equal(gone.status, 410);
    assert.equal(gone.headers.get("retry-after"), "2");
    assert.equal(gone.body.error.code, "not_found");
    // A player reloading its playlist restarts the channel and follows it to the new generation.
    const moved = await fetch(playlistUrl, { redirect: "manual" });
    assert.equal(moved.status, 307);
    const g2 = new URL(moved.headers.get("location")!).searchParams.get("g");
    assert.ok(g2 !== null && g2 !== g1, `${g1} → ${g2}`);
    const again = await fetch(moved.headers.get("location")!);
    assert.equal(again.status, 200);
    assert.match(await again.text(), /#EXT-X-MEDIA-SEQUENCE:/);
  });
});

describe("session control over the admin API (full binary)", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  let admin: string;

  before(async () => {
    src = await startDashLiveSource({ heights: [360], languages: ["eng"] });
    await src.waitForSegments(3);
    gw = await startGateway("full", {
      auth: authSection(),
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        { id: "live", title: "Live", ingress: "dash", source_url: src.mpdUrl, on_demand: false },
        { id: "hls", title: "HLS", ingress: "hls", source_url: "http://127.0.0.1:9/x.m3u8" },
      ],
    });
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("warms a channel up with 202 {state: starting} and lists its session in /v1/status", async () => {
    const warm = await requestJson(`${gw.url}/v1/admin/channels/live/warmup`, {
      method: "POST",
      token: admin,
    });
    assert.equal(warm.status, 202);
    assert.deepEqual(warm.body, { state: "starting" });
    const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
    assert.equal(status.status, 200);
    assert.equal(status.body.session_count, 1);
    const s = status.body.sessions[0];
    assert.equal(s.channel_id, "live");
    assert.equal(s.engine, "native");
    for (const field of [
      "mode",
      "pack_mode",
      "fallback_reason",
      "started_at",
      "last_touch",
      "state",
      "errors",
      "last_error",
    ]) {
      assert.ok(field in s, `status session lacks ${field}`);
    }
    assert.match(s.started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it("stops the session with 204, then 404 when none runs", async () => {
    const del = await requestJson(`${gw.url}/v1/admin/sessions/live`, {
      method: "DELETE",
      token: admin,
    });
    assert.equal(del.status, 204);
    assert.equal(del.text, "");
    const status = await requestJson(`${gw.url}/v1/status`, { token: admin });
    assert.equal(status.body.session_count, 0);
    const again = await requestJson(`${gw.url}/v1/admin/sessions/live`, {
      method: "DELETE",
      token: admin,
    });
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, "not_found");
  });

  it("answers 404 for an unknown channel and refuses a viewer session", async () => {
    const unknown = await requestJson(`${gw.url}/v1/admin/channels/nope/warmup`, {
      method: "POST",
      token: admin,
    });
    assert.equal(unknown.status, 404);
    const viewer = await login(gw.url, "viewer", VIEWER_PASSWORD);
    const denied = await requestJson(`${gw.url}/v1/admin/channels/live/warmup`, {
      method: "POST",
      token: viewer,
    });
    assert.equal(denied.status, 403);
  });

  it("refuses to warm up a channel that is not locally packaged", async () => {
    const r = await requestJson(`${gw.url}/v1/admin/channels/hls/warmup`, {
      method: "POST",
      token: admin,
    });
    assert.equal(r.status, 409);
    assert.equal(r.body.error.code, "conflict");
  });
});
