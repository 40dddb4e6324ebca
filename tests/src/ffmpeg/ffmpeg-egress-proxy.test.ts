import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createEgressProxy, type EgressProxy } from "@svc/core/egress";
import { startFfmpegSession, stopAllFfmpegSessions } from "@svc/playback/ffmpeg-engine";
import {
  type DashSource,
  startDashSource,
  startOrigin,
  waitFor,
} from "../harness/ffmpeg-dash-origin.js";

// ffmpeg fetches a live DASH source through the gateway's egress proxy (`-http_proxy`).
// Only 127.0.0.1 is bound or contacted; the refused case is refused by the guard itself.
const timeouts = { connectMs: 2_000, firstByteMs: 10_000, idleMs: 10_000 };

describe("ffmpeg compatibility engine behind the egress proxy", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-proxy-"));
  const dataDir = join(root, "data");
  let source: DashSource;
  let proxy: EgressProxy;

  before(async () => {
    source = await startDashSource(join(root, "origin"));
    proxy = await createEgressProxy({ allowedHosts: ["127.0.0.1"], timeouts });
  });
  after(async () => {
    await stopAllFfmpegSessions();
    await source?.stop();
    await proxy?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("fetches the MPD and every init and media segment through the proxy", async () => {
    const origin = await startOrigin(join(root, "origin"));
    try {
      // ffmpeg's argv carries no header: only the proxy can add this one, so a request that
      // went around the proxy would reach the origin without it.
      const r = await startFfmpegSession({
        ffmpegPath: "ffmpeg",
        dataDir,
        channelId: "proxied",
        generation: 1,
        source: { url: `${origin.url}/live/manifest.mpd`, headers: { "X-Via": "egress-proxy" } },
        egressProxy: proxy,
        sourceOrigin: origin.url,
        output: { segmentSeconds: 1, listSize: 4 },
      });
      assert.ok(r.ok, r.ok ? "" : r.error);
      const session = r.value;
      // The origin keeps its last 500 requests and live DASH refetches the MPD often: keep
      // every path seen while waiting.
      const seen = new Set<string>();
      const ok = await waitFor(() => {
        for (const q of origin.requests) seen.add(q.path);
        const pl = existsSync(session.playlistPath)
          ? readFileSync(session.playlistPath, "utf8")
          : "";
        return (pl.match(/^#EXTINF/gm) ?? []).length >= 3;
      }, 45_000);
      assert.ok(ok, `no playlist through the proxy: ${JSON.stringify(session.status())}`);
      const command = session.status().command.join(" ");
      await session.stop();

      for (const q of origin.requests) seen.add(q.path);
      assert.ok(
        [...seen].some((p) => p.endsWith(".mpd")),
        "MPD",
      );
      assert.ok(
        [...seen].some((p) => /\/init-stream\d+\.m4s$/.test(p)),
        "init segment",
      );
      const media = [...seen].filter((p) => /\/chunk-stream\d+-\d+\.m4s$/.test(p));
      assert.ok(media.length >= 3, "media segments");
      for (const q of origin.requests) assert.equal(q.headers["x-via"], "egress-proxy", q.path);
      assert.match(command, /-http_proxy http:\/\/127\.0\.0\.1:\d+ /);
      assert.match(command, /-protocol_whitelist http,https,tcp,tls,httpproxy -i /);
    } finally {
      await origin.close();
    }
  });

  it("a source whose host the guard refuses fails in ffmpeg; nothing reaches the origin", async () => {
    const origin = await startOrigin(join(root, "origin"));
    const strict = await createEgressProxy({ allowedHosts: [], timeouts });
    try {
      const r = await startFfmpegSession({
        ffmpegPath: "ffmpeg",
        dataDir,
        channelId: "refused",
        generation: 1,
        source: { url: `${origin.url}/live/manifest.mpd` },
        egressProxy: strict,
        supervision: { backoff: { initialMs: 100, factor: 2, maxMs: 400 } },
      });
      assert.ok(r.ok, r.ok ? "" : r.error);
      const session = r.value;
      assert.ok(
        await waitFor(() => session.status().runs >= 2, 30_000),
        JSON.stringify(session.status()),
      );
      const status = session.status();
      await session.stop();
      assert.equal(status.running_since, null);
      assert.match(
        status.last_error ?? "",
        /HTTP error 403 Forbidden \(egress guard: target address is loopback\)/,
      );
      assert.deepEqual(origin.requests, []);
    } finally {
      await strict.close();
      await origin.close();
    }
  });
});
