import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  createEgressProxy,
  createEgressRoutes,
  createHostAllowlist,
  type EgressProxy,
  type EgressRoutes,
} from "@svc/core/egress";
import { startFfmpegSession, stopAllFfmpegSessions } from "@svc/playback/ffmpeg-engine";
import {
  type DashSource,
  startDashSource,
  startOrigin,
  waitFor,
} from "../harness/ffmpeg-dash-origin.js";
import { type LoopbackProxy, startHttpProxy, startSocks5Proxy } from "./loopback-proxies.js";

// The ffmpeg compatibility engine's requests leave through the loopback egress proxy; with
// the gateway's routes installed, that proxy's upstream leg takes the channel's route.
const timeouts = { connectMs: 2_000, firstByteMs: 10_000, idleMs: 10_000 };

describe("ffmpeg's fetches follow the egress routes", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-routes-"));
  let source: DashSource;
  let socks: LoopbackProxy;
  let http: LoopbackProxy;
  let routes: EgressRoutes;
  let proxy: EgressProxy;

  before(async () => {
    source = await startDashSource(join(root, "origin"));
    socks = await startSocks5Proxy({ credentials: { user: "ff", pass: "mpeg-secret" } });
    http = await startHttpProxy();
    routes = createEgressRoutes({
      allowlist: createHostAllowlist(["127.0.0.1"]),
      timeouts,
      document: {
        default: "direct",
        docker_proxy_host: "",
        proxies: [
          {
            id: "socks",
            name: "",
            url: `socks5://ff:mpeg-secret@127.0.0.1:${socks.port}`,
            disabled: false,
          },
          { id: "http", name: "", url: `http://127.0.0.1:${http.port}`, disabled: false },
        ],
        rules: [{ id: "r1", kind: "channel_id", pattern: "ruled", proxy: "http" }],
      },
    });
    routes.bindChannels((id) =>
      id === "bound" ? { mode: "profile", profileId: "socks" } : undefined,
    );
    proxy = await createEgressProxy({ allowedHosts: ["127.0.0.1"], timeouts, routes });
  });
  after(async () => {
    await stopAllFfmpegSessions();
    await source?.stop();
    await proxy?.close();
    await routes?.close();
    await socks?.close();
    await http?.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const [channelId, via] of [
    ["bound", () => socks],
    ["ruled", () => http],
  ] as const) {
    it(`packages channel "${channelId}" with every request through its route`, async () => {
      const origin = await startOrigin(join(root, "origin"));
      const before = via().relayed;
      try {
        const r = await startFfmpegSession({
          ffmpegPath: "ffmpeg",
          dataDir: join(root, "data"),
          channelId,
          generation: 1,
          source: { url: `${origin.url}/live/manifest.mpd` },
          // The run is admitted with its channel id: the channel's route applies.
          egressProxy: proxy,
          output: { segmentSeconds: 1, listSize: 4 },
        });
        assert.ok(r.ok, r.ok ? "" : r.error);
        const session = r.value;
        const ok = await waitFor(() => {
          const pl = existsSync(session.playlistPath)
            ? readFileSync(session.playlistPath, "utf8")
            : "";
          return (pl.match(/^#EXTINF/gm) ?? []).length >= 2;
        }, 45_000);
        const status = session.status();
        await session.stop();
        assert.ok(ok, `no playlist through the route: ${JSON.stringify(status)}`);
        assert.ok(origin.requests.some((q) => q.path.endsWith(".mpd")));
        // The MPD and the segments came back through the route's proxy.
        assert.ok(via().relayed - before > 10_000, `${via().relayed - before} bytes`);
        assert.equal(JSON.stringify(status).includes("mpeg-secret"), false);
      } finally {
        await origin.close();
      }
    });
  }

  it("a request without a channel takes the default (direct): no proxy carries it", async () => {
    const origin = await startOrigin(join(root, "origin"));
    const before = [socks.relayed, http.relayed];
    try {
      const r = await startFfmpegSession({
        ffmpegPath: "ffmpeg",
        dataDir: join(root, "data"),
        channelId: "plain",
        generation: 1,
        source: { url: `${origin.url}/live/manifest.mpd` },
        egressProxy: proxy,
        output: { segmentSeconds: 1, listSize: 4 },
      });
      assert.ok(r.ok, r.ok ? "" : r.error);
      const session = r.value;
      const ok = await waitFor(() => origin.requests.some((q) => q.path.endsWith(".m4s")), 45_000);
      await session.stop();
      assert.ok(ok);
      assert.deepEqual([socks.relayed, http.relayed], before);
    } finally {
      await origin.close();
    }
  });
});
