import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createEgressProxy, type EgressProxy } from "@svc/core/egress";
import {
  checkFfmpeg,
  createFfmpegChecker,
  startFfmpegSession,
  stopAllFfmpegSessions,
} from "@svc/playback/ffmpeg-engine";
import { type Origin, startOrigin, waitFor } from "../harness/ffmpeg-dash-origin.js";
import { isGone, ourZombies } from "../harness/process-table.js";

const KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
const TOKEN = "tok-9d8c7b6a";

describe("ffmpeg compatibility engine: failures", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-fail-"));
  const dataDir = join(root, "data");
  let origin: Origin;
  let proxy: EgressProxy;

  before(async () => {
    origin = await startOrigin(join(root, "empty"));
    proxy = await createEgressProxy({
      allowedHosts: ["127.0.0.1"],
      timeouts: { connectMs: 2_000, firstByteMs: 10_000, idleMs: 10_000 },
    });
  });
  after(async () => {
    await stopAllFfmpegSessions();
    await origin?.close();
    await proxy?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("a 404 MPD: restarts with growing backoff, last_error carries ffmpeg's line, never the key", async () => {
    // The key is also in the URL path, so ffmpeg really prints it in its 404 line.
    const r = await startFfmpegSession({
      ffmpegPath: "ffmpeg",
      dataDir,
      channelId: "broken",
      generation: "g1",
      source: {
        url: `${origin.url}/missing/${KEY}/manifest.mpd?token=${TOKEN}`,
        decryptionKey: KEY,
        headers: { Authorization: `Bearer ${TOKEN}` },
      },
      egressProxy: proxy,
      supervision: { backoff: { initialMs: 100, factor: 2, maxMs: 400 } },
    });
    assert.ok(r.ok, r.ok ? "" : r.error);
    const session = r.value;
    const exits: (number | null)[] = [];
    session.on("exit", (e) => exits.push(e.code));
    const seen = new Set<string>();
    session.on("state", (s) => seen.add(JSON.stringify(s)));
    assert.ok(
      await waitFor(() => session.status().runs >= 4, 30_000),
      JSON.stringify(session.status()),
    );
    const status = session.status();
    assert.ok(status.restarts >= 3);
    assert.ok(status.consecutive_failures >= 3);
    assert.ok(exits.length >= 3 && exits.every((c) => c !== 0 && c !== null), String(exits));
    const lastError = status.last_error ?? "";
    assert.match(lastError, /Server returned 404 Not Found/);
    assert.match(
      lastError,
      /\[gateway\] ffmpeg exited \(code 1\) after [\d.]+ s; restart in 0\.1 s/,
    );
    assert.match(lastError, /restart in 0\.2 s/);
    assert.match(lastError, /restart in 0\.4 s/);
    assert.ok(
      origin.requests.some((q) => q.path.includes("/missing/")),
      "ffmpeg did ask the origin",
    );
    for (const snapshot of [JSON.stringify(status), ...seen]) {
      assert.equal(snapshot.toLowerCase().includes(KEY), false, "key leaked");
      assert.equal(snapshot.includes(TOKEN), false, "token leaked");
    }
    assert.match(lastError, /missing\/\[redacted\]\/manifest\.mpd\?\[redacted\]/);
    assert.ok(status.command.includes("[redacted]"));
    const pid = status.pid;
    await session.stop();
    if (pid !== null) assert.ok(isGone(pid));
    assert.deepEqual(ourZombies(), []);
  });

  it("a missing ffmpeg binary: the session fails at once with the reason", async () => {
    const r = await startFfmpegSession({
      ffmpegPath: join(root, "no-such-ffmpeg"),
      dataDir,
      channelId: "nobin",
      generation: 1,
      source: { url: `${origin.url}/live/manifest.mpd` },
    });
    assert.ok(r.ok);
    assert.ok(await waitFor(() => r.value.status().state === "failed", 5_000));
    assert.match(r.value.status().last_error ?? "", /cannot run ffmpeg: ENOENT/);
    assert.equal(r.value.status().runs, 1);
    await r.value.stop();
    assert.equal(r.value.status().state, "stopped");
  });

  it("refuses a header that would inject a line into ffmpeg's request", async () => {
    const r = await startFfmpegSession({
      ffmpegPath: "ffmpeg",
      dataDir,
      channelId: "inject",
      generation: 1,
      source: { url: `${origin.url}/x.mpd`, headers: { "X-A": "1\r\nHost: evil" } },
    });
    assert.deepEqual(r, { ok: false, error: 'header "X-A" cannot be sent' });
  });

  it("checkFfmpeg: runnable ffmpeg, missing path, a program that is not ffmpeg", async () => {
    const good = await checkFfmpeg("ffmpeg");
    assert.ok(good.ok && /^\d+\.\d+/.test(good.version), JSON.stringify(good));
    const missing = await checkFfmpeg(join(root, "no-such-ffmpeg"));
    assert.deepEqual(missing, { ok: false, reason: "cannot run ffmpeg (ENOENT)" });
    const notFfmpeg = await checkFfmpeg("/bin/true");
    assert.deepEqual(notFfmpeg, {
      ok: false,
      reason: "the program does not identify itself as ffmpeg",
    });
    const failing = await checkFfmpeg("/bin/false");
    assert.deepEqual(failing, { ok: false, reason: "ffmpeg -version exited with status 1" });
  });

  it("checkFfmpeg caches per path and shares one probe", async () => {
    const check = createFfmpegChecker({ ttlMs: 60_000 });
    const a = check("ffmpeg");
    const b = check("ffmpeg");
    assert.equal(a, b, "concurrent callers share one probe");
    assert.deepEqual(await a, await b);
    assert.equal(check("ffmpeg"), a, "cached answer within the TTL");
    const fresh = createFfmpegChecker({ ttlMs: 0 });
    assert.notEqual(fresh("ffmpeg"), fresh("ffmpeg"), "expired: probes again");
  });
});
