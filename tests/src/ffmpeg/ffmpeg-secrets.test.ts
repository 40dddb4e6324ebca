import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createEgressProxy, type EgressProxy } from "@svc/core/egress";
import { startFfmpegSession, stopAllFfmpegSessions } from "@svc/playback/ffmpeg-engine";
import {
  type DashSource,
  type Origin,
  startDashSource,
  startOrigin,
  waitFor,
} from "../harness/ffmpeg-dash-origin.js";
import { cmdline } from "../harness/process-table.js";

// Issue 12 item 6: what any local user can read of a running ffmpeg (/proc/<pid>/cmdline,
// /proc/<pid>/environ) holds no channel header, no proxy credential and no gateway variable,
// and the proxy serves no process but the admitted ffmpeg, and that one only while it lives.
const TOKEN = "tok-5b1e0c9a7d";
const API_KEY = "apikey-31c6f0e2";
const UA = "SVC-Secrets/2.0";
const MARKER = "svc-private-key-marker-8e21";

/** `/proc/<pid>/environ` as name → value. */
function environ(pid: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) out.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return out;
}

/** One absolute-form GET through the proxy from this (not admitted) process. */
function viaProxy(proxy: EgressProxy, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: proxy.port, path: url, agent: false });
    req.once("error", reject);
    req.once("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.end();
  });
}

describe("ffmpeg compatibility engine: no secret in ffmpeg's argv or environment", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-secrets-"));
  const saved = { ...process.env };
  let source: DashSource;
  let origin: Origin;
  let proxy: EgressProxy;

  before(async () => {
    // What a gateway's environment may hold; ffmpeg must see none of it.
    process.env.SVC_TOKEN_PRIVATE_KEY = MARKER;
    process.env.SVC_DATABASE_URL = `postgres://svc:${MARKER}@127.0.0.1:1/svc`;
    process.env.no_proxy = "127.0.0.1";
    source = await startDashSource(join(root, "origin"));
    origin = await startOrigin(join(root, "origin"));
    proxy = await createEgressProxy({
      allowedHosts: ["127.0.0.1"],
      timeouts: { connectMs: 2_000, firstByteMs: 10_000, idleMs: 10_000 },
    });
  });
  after(async () => {
    await stopAllFfmpegSessions();
    await source?.stop();
    await origin?.close();
    await proxy?.close();
    for (const name of ["SVC_TOKEN_PRIVATE_KEY", "SVC_DATABASE_URL", "no_proxy"])
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    rmSync(root, { recursive: true, force: true });
  });

  it("argv and environ hold no header, user agent, credential or SVC_ variable; headers still reach the origin", async () => {
    const admitted: number[] = [];
    const revoked: number[] = [];
    const r = await startFfmpegSession({
      ffmpegPath: "ffmpeg",
      dataDir: join(root, "data"),
      channelId: "secret",
      generation: 1,
      source: {
        url: `${origin.url}/live/manifest.mpd`,
        headers: { Authorization: `Bearer ${TOKEN}`, "X-Api-Key": API_KEY },
        userAgent: UA,
      },
      // The real proxy, its admissions recorded on the way.
      egressProxy: {
        url: proxy.url,
        admit(pid, grant) {
          admitted.push(pid);
          const revoke = proxy.admit(pid, grant);
          return () => {
            revoked.push(pid);
            revoke();
          };
        },
      },
      sourceOrigin: origin.url,
      output: { segmentSeconds: 1, listSize: 4 },
    });
    assert.ok(r.ok, r.ok ? "" : r.error);
    const session = r.value;
    assert.ok(
      await waitFor(() => session.status().state === "running", 45_000),
      JSON.stringify(session.status()),
    );
    const pid = session.currentPid();
    assert.ok(pid !== null);
    assert.deepEqual(admitted, [pid]);

    const argv = cmdline(pid).join(" ");
    assert.match(argv, /-http_proxy http:\/\/127\.0\.0\.1:\d+ /, argv);
    for (const secret of [TOKEN, API_KEY, UA, "Authorization", "-headers", "-user_agent"])
      assert.equal(argv.includes(secret), false, `${secret} in ffmpeg's argv: ${argv}`);
    assert.equal(/\/\/[^/\s]*@/.test(argv), false, `a URL with userinfo in argv: ${argv}`);

    const env = environ(pid);
    assert.deepEqual(
      [...env.keys()].filter((k) => k !== "PATH" && k !== "LANG"),
      [],
      "only PATH and LANG",
    );
    const raw = readFileSync(`/proc/${pid}/environ`, "utf8");
    assert.equal(raw.includes(MARKER), false);

    // The proxy added them: the MPD and segment requests carry the channel's headers.
    const seen = origin.requests.filter((q) => q.path.startsWith("/live/"));
    assert.ok(
      seen.some((q) => q.path.endsWith(".m4s")),
      "segments fetched",
    );
    for (const q of seen) {
      assert.equal(q.headers.authorization, `Bearer ${TOKEN}`, q.path);
      assert.equal(q.headers["x-api-key"], API_KEY, q.path);
      assert.equal(q.headers["user-agent"], UA, q.path);
    }

    // Everything ffmpeg's argv says does not open the proxy to another local process.
    assert.equal(await viaProxy(proxy, `${origin.url}/live/probe-from-another-process`), 407);
    assert.equal(
      origin.requests.some((q) => q.path.includes("probe-from-another-process")),
      false,
    );

    await session.stop();
    assert.deepEqual(revoked, [pid], "the run's admission ends with the process");
  });
});
