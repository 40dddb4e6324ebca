import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buffer } from "node:stream/consumers";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createEgressProxy, type EgressProxy } from "@svc/core/egress";
import {
  type FfmpegSession,
  serveSessionFile,
  startFfmpegSession,
  stopAllFfmpegSessions,
} from "@svc/playback/ffmpeg-engine";
import {
  type DashSource,
  type Origin,
  startDashSource,
  startOrigin,
  waitFor,
} from "../harness/ffmpeg-dash-origin.js";
import { groupMembers, isGone, ourZombies } from "../harness/process-table.js";

// Async, so the engine's watchdog keeps running while the independent player works.
const run = promisify(execFile);
const HEADER_VALUE = "hdr-value-7f3a";
const UA = "SVC-Test/1.0";

describe("ffmpeg compatibility engine: live DASH → HLS with the real ffmpeg", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-engine-"));
  const dataDir = join(root, "data");
  let source: DashSource;
  let origin: Origin;
  let proxy: EgressProxy;
  let session: FfmpegSession;

  before(async () => {
    source = await startDashSource(join(root, "origin"));
    origin = await startOrigin(join(root, "origin"));
    proxy = await createEgressProxy({
      allowedHosts: ["127.0.0.1"],
      timeouts: { connectMs: 2_000, firstByteMs: 10_000, idleMs: 10_000 },
    });
    const r = await startFfmpegSession({
      ffmpegPath: "ffmpeg",
      dataDir,
      channelId: "news",
      generation: 1,
      source: {
        url: `${origin.url}/live/manifest.mpd`,
        headers: { "X-Gateway-Test": HEADER_VALUE },
        userAgent: UA,
      },
      egressProxy: proxy,
      output: { segmentSeconds: 1, listSize: 4 },
      // A short stall threshold for the pause test; the restart threshold stays out of reach.
      supervision: { stallMs: 3_000, stallRestartMs: 120_000, tickMs: 200 },
    });
    assert.ok(r.ok, r.ok ? "" : r.error);
    session = r.value;
  });

  after(async () => {
    await stopAllFfmpegSessions();
    await source?.stop();
    await origin?.close();
    await proxy?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("reaches running and writes a sliding-window fMP4 playlist in the session folder", async () => {
    assert.equal(session.dir, join(dataDir, "sessions", "news", "1"));
    const states: string[] = [];
    session.on("state", (s) => states.push(s.state));
    const ok = await waitFor(() => {
      if (session.status().state !== "running") return false;
      const pl = existsSync(session.playlistPath) ? readFileSync(session.playlistPath, "utf8") : "";
      return (pl.match(/^#EXTINF/gm) ?? []).length >= 3;
    }, 30_000);
    assert.ok(ok, `playlist never had 3 segments; status ${JSON.stringify(session.status())}`);
    const pl = readFileSync(session.playlistPath, "utf8");
    assert.match(pl, /^#EXTM3U/);
    assert.match(pl, /#EXT-X-INDEPENDENT-SEGMENTS/);
    assert.match(pl, /#EXT-X-MAP:URI="init-r0\.mp4"/);
    assert.match(pl, /^r0-\d+\.m4s$/m);
    assert.doesNotMatch(pl, /#EXT-X-ENDLIST/);
    const status = session.status();
    assert.equal(status.runs, 1);
    assert.equal(typeof status.pid, "number");
    assert.ok(status.running_since !== null);
    assert.ok(existsSync(join(dataDir, "sessions", ".pids", `${status.pid}.json`)));
  });

  it("sends the channel's headers and user agent on MPD and segment requests", () => {
    const mpd = origin.requests.filter((r) => r.path.endsWith(".mpd"));
    const segments = origin.requests.filter((r) => r.path.endsWith(".m4s"));
    assert.ok(mpd.length > 0 && segments.length > 0);
    for (const r of [...mpd, ...segments]) {
      assert.equal(r.headers["user-agent"], UA, r.path);
      assert.equal(r.headers["x-gateway-test"], HEADER_VALUE, r.path);
    }
  });

  it("ffmpeg (as an independent player) reads 3 s of the published playlist", async () => {
    await run(
      "ffmpeg",
      ["-hide_banner", "-v", "error", "-i", session.playlistPath, "-t", "3", "-f", "null", "-"],
      { timeout: 30_000 },
    );
    const probe = await run(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", session.playlistPath],
      { timeout: 30_000 },
    );
    // ffprobe lists HLS streams once per program as well: compare the distinct codecs.
    const codecs = new Set(probe.stdout.split("\n").filter((l) => l.trim() !== ""));
    assert.deepEqual([...codecs].sort(), ["aac", "h264"]);
  });

  it("serves the playlist and its segments through serveSessionFile", async () => {
    // Without a layout ffmpeg writes the master (index.m3u8) over its one media playlist.
    const master = await serveSessionFile(session.dir, "index.m3u8", { playlistQuery: "token=t1" });
    assert.ok(master.ok && typeof master.body === "string");
    assert.match(
      master.body,
      /#EXT-X-STREAM-INF:BANDWIDTH=\d+,RESOLUTION=\d+x\d+\nmedia-0\.m3u8\?token=t1\n/,
    );
    const pl = await serveSessionFile(session.dir, "media-0.m3u8", { playlistQuery: "token=t1" });
    assert.ok(pl.ok && typeof pl.body === "string");
    assert.equal(pl.headers["cache-control"], "no-cache");
    const uris = pl.body.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    assert.ok(uris.length >= 3 && uris.every((u) => /^r0-\d+\.m4s\?token=t1$/.test(u)), pl.body);
    const name = uris.at(-1)?.split("?")[0] ?? "";
    const seg = await serveSessionFile(session.dir, name);
    assert.ok(seg.ok && typeof seg.body !== "string");
    assert.equal(seg.headers["cache-control"], "private, max-age=31536000, immutable");
    const bytes = await buffer(seg.body);
    assert.equal(bytes.length, Number(seg.headers["content-length"]));
    assert.ok(
      ["styp", "moof"].includes(bytes.subarray(4, 8).toString("latin1")),
      "an fMP4 fragment",
    );
    assert.ok(bytes.includes("moof") && bytes.includes("mdat"));
  });

  it("a source that stops moving makes the session stalled; it recovers when the source resumes", async () => {
    const { runs, stalls } = session.status();
    source.pause();
    try {
      assert.ok(
        await waitFor(() => session.status().state === "stalled", 20_000),
        JSON.stringify(session.status()),
      );
      assert.equal(session.status().stalls, stalls + 1);
    } finally {
      source.resume();
    }
    assert.ok(
      await waitFor(() => session.status().state === "running", 30_000),
      JSON.stringify(session.status()),
    );
    assert.equal(session.status().runs, runs, "recovered without a restart");
  });

  it("stop kills the process group, reaps ffmpeg, removes pidfile and folder", async () => {
    const pid = session.status().pid;
    assert.ok(pid !== null);
    assert.ok(groupMembers(pid).length >= 1, "ffmpeg leads its own process group");
    await session.stop();
    assert.equal(session.status().state, "stopped");
    assert.equal(session.status().pid, null);
    assert.ok(isGone(pid), `ffmpeg ${pid} still in /proc`);
    assert.equal(existsSync(`/proc/${pid}`), false, "our child must be reaped, not a zombie");
    assert.deepEqual(groupMembers(pid), []);
    assert.deepEqual(ourZombies(), []);
    assert.equal(existsSync(session.dir), false);
    assert.deepEqual(readdirSync(join(dataDir, "sessions", ".pids")), []);
  });
});
