import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createEgressProxy, type EgressProxy } from "@svc/core/egress";
import { startFfmpegSession, stopAllFfmpegSessions } from "@svc/playback/ffmpeg-engine";
import { writeClearKeyDash } from "../harness/clearkey-dash-fixture.js";
import { type Origin, startOrigin, waitFor } from "../harness/ffmpeg-dash-origin.js";
import { cmdline } from "../harness/process-table.js";

const run = promisify(execFile);
const KID = "00112233445566778899aabbccddeeff";
const KEY = "0f0e0d0c0b0a09080706050403020100";
const WRONG = "ffeeddccbbaa99887766554433221100";

/** Decode errors an independent ffmpeg reports while decoding 3 s of the playlist. */
async function decodeErrors(playlist: string): Promise<string> {
  const r = await run(
    "ffmpeg",
    ["-hide_banner", "-v", "error", "-i", playlist, "-t", "3", "-f", "null", "-"],
    { timeout: 30_000 },
  ).catch((e: { stderr?: string }) => ({ stderr: e.stderr ?? "failed" }));
  return r.stderr;
}

describe("ffmpeg compatibility engine: ClearKey cenc DASH via -cenc_decryption_key", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-ffmpeg-clearkey-"));
  const dataDir = join(root, "data");
  let origin: Origin;
  let proxy: EgressProxy;

  before(async () => {
    writeClearKeyDash(join(root, "origin"), KID, KEY);
    origin = await startOrigin(join(root, "origin"));
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

  /** argv of every ffmpeg run admitted to the proxy, read at admission. */
  const argvs: string[][] = [];

  async function publish(channelId: string, key: string, via: "argv" | "proxy" = "argv") {
    const r = await startFfmpegSession({
      ffmpegPath: "ffmpeg",
      dataDir,
      channelId,
      generation: 1,
      source: {
        url: `${origin.url}/vod/manifest.mpd`,
        ...(via === "argv" ? { decryptionKey: key } : {}),
      },
      ...(via === "proxy"
        ? {
            egressProxy: {
              url: proxy.url,
              admit: (pid: number, grant?: Parameters<EgressProxy["admit"]>[1]) => {
                argvs.push(cmdline(pid));
                return proxy.admit(pid, grant);
              },
            },
            decryption: new Map([[KID, Buffer.from(key, "hex")]]),
          }
        : {}),
      // The whole 6 s presentation in one playlist; ffmpeg then exits at the end of the
      // static MPD, and the long restart delay keeps this run's output in place.
      output: { segmentSeconds: 1, listSize: 0 },
      supervision: { backoff: { initialMs: 120_000 } },
    });
    assert.ok(r.ok, r.ok ? "" : r.error);
    const session = r.value;
    const ready = await waitFor(() => {
      if (!existsSync(session.playlistPath)) return false;
      return /#EXT-X-ENDLIST/.test(readFileSync(session.playlistPath, "utf8"));
    }, 30_000);
    assert.ok(ready, JSON.stringify(session.status()));
    return session;
  }

  it("with the right key the published HLS decodes cleanly, and the key is nowhere in the status", async () => {
    const session = await publish("enc-right", KEY);
    assert.equal(await decodeErrors(session.playlistPath), "");
    const status = JSON.stringify(session.status());
    assert.equal(status.includes(KEY), false);
    assert.ok(session.status().command.includes("[redacted]"));
    await session.stop();
  });

  it("control: with a wrong key the copied media does not decode", async () => {
    const session = await publish("enc-wrong", WRONG);
    assert.notEqual(await decodeErrors(session.playlistPath), "");
    await session.stop();
  });

  it("behind the egress proxy: ffmpeg gets clear media and no key on its argv; it decodes", async () => {
    const session = await publish("enc-proxy", KEY, "proxy");
    assert.equal(await decodeErrors(session.playlistPath), "");
    assert.ok(argvs.length >= 1);
    for (const argv of argvs) {
      const text = argv.join(" ");
      assert.ok(text.includes("-http_proxy"), text);
      assert.equal(text.toLowerCase().includes(KEY), false, `key in argv: ${text}`);
      assert.equal(argv.includes("-cenc_decryption_key"), false);
    }
    // The source really is encrypted: the origin served protected init segments.
    const served = readFileSync(join(root, "origin", "vod", "init-stream0.m4s"));
    assert.ok(served.includes("encv") || served.includes("enca"));
    assert.equal(JSON.stringify(session.status()).includes(KEY), false);
    await session.stop();
  });

  it("control: behind the proxy with a wrong key the media does not decode", async () => {
    const session = await publish("enc-proxy-wrong", WRONG, "proxy");
    assert.notEqual(await decodeErrors(session.playlistPath), "");
    await session.stop();
  });
});
