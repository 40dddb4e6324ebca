import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startFfmpegSession, stopAllFfmpegSessions } from "@svc/playback/ffmpeg-engine";

// Issue 12 item 8: session folders hold decrypted media and ffmpeg's logs: owner only,
// folders an older version created with a wider mode included.

describe("ffmpeg session folders are 0700", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-session-folder-"));
  const dataDir = join(root, "data");
  after(async () => {
    await stopAllFfmpegSessions();
    rmSync(root, { recursive: true, force: true });
  });

  it("creates sessions/<channel>/<generation> with mode 0700 and tightens older folders", async () => {
    mkdirSync(join(dataDir, "sessions", "news"), { recursive: true, mode: 0o755 });
    const r = await startFfmpegSession({
      ffmpegPath: "ffmpeg",
      dataDir,
      channelId: "news",
      generation: 1,
      // Nothing listens there: the folder, not the stream, is under test.
      // No headers or user agent: those need the egress proxy, which is not under test.
      source: { url: "http://127.0.0.1:9/live/manifest.mpd", headers: {}, userAgent: "" },
      output: { segmentSeconds: 1, listSize: 4 },
    });
    assert.ok(r.ok, r.ok ? "" : r.error);
    for (const dir of ["sessions", "sessions/news", "sessions/news/1"]) {
      const mode = statSync(join(dataDir, dir)).mode & 0o777;
      assert.equal(mode.toString(8), "700", dir);
    }
  });
});
