import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { playWithFfmpeg } from "../harness/media-probe.js";
import { allProcs, cmdline } from "../harness/process-table.js";
import { until } from "../harness/until.js";
import { authSection } from "../harness/users.js";

// Issue 12 item 6 through the full binary: the ffmpeg the gateway runs for an encrypted
// channel with secret headers shows none of them, nor the key, nor the gateway's
// environment, to a local user reading /proc; the channel still plays. Loopback only.
const KID = "9eb4050de44b4802932e27d75083e266";
const KEY = "166634c675823c235a4a9446fad52e4d";
const TOKEN = "chan-token-0c41d77e";
const COOKIE = "sess=cookie-5f2a";

describe("ffmpeg compatibility engine through the full binary: secrets stay off /proc", () => {
  let src: DashLiveSource;
  let gw: GatewayProcess;
  const privateKey = generateKeyPairSync("ed25519").privateKey.export({
    type: "pkcs8",
    format: "pem",
  }) as string;

  before(async () => {
    src = await startDashLiveSource({
      heights: [180],
      languages: ["eng"],
      fragDurationSec: 0,
      encrypt: { kid: KID, key: KEY },
    });
    await src.waitForSegments(3);
    gw = await startGateway(
      "full",
      {
        auth: authSection(),
        security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
        channels: [
          {
            id: "enc",
            title: "enc",
            ingress: "dash",
            engine: "ffmpeg",
            source_url: src.mpdUrl,
            keys: { [KID]: KEY },
            headers: { Authorization: `Bearer ${TOKEN}`, Cookie: COOKIE },
            user_agent: "SVC-Channel/3",
          },
        ],
      },
      // The signing key in the environment, as the spec allows: ffmpeg must not inherit it.
      { env: { SVC_TOKEN_PRIVATE_KEY: privateKey } },
    );
  });
  after(async () => {
    await gw?.stop();
    await src?.stop();
  });

  it("plays; ffmpeg's cmdline and environ hold no key, header, user agent or SVC_ variable", async () => {
    const played = await playWithFfmpeg(`${gw.url}/v1/play/enc/index.m3u8`, 4);
    assert.equal(played.code, 0, played.stderr);
    // Decoding errors would show a wrong decryption. ffmpeg 5.1's DASH reader re-reads a live
    // SegmentTimeline window (docs/ffmpeg-engine.md, "Decisions"), so the player may warn
    // about repeated timestamps: that line, and only that one, is expected.
    const unexpected = played.stderr
      .split("\n")
      .filter((l) => l.trim() !== "")
      .filter((l) => !/non monotonically increasing dts|Last message repeated/.test(l));
    assert.deepEqual(unexpected, []);
    const sessions = join(gw.dataDir, "sessions");
    const ffmpeg = await until("the gateway's ffmpeg", () =>
      allProcs().find((p) => cmdline(p.pid).some((a) => a.startsWith(`${sessions}/`))),
    );
    const argv = cmdline(ffmpeg.pid).join(" ");
    const environ = readFileSync(`/proc/${ffmpeg.pid}/environ`, "utf8");
    for (const secret of [KEY, TOKEN, COOKIE, "SVC-Channel/3", "-cenc_decryption_key", "-headers"])
      assert.equal(argv.toLowerCase().includes(secret.toLowerCase()), false, `${secret}: ${argv}`);
    assert.equal(/\/\/[^/\s]*@/.test(argv), false, `URL userinfo in argv: ${argv}`);
    const names = environ
      .split("\0")
      .filter((e) => e !== "")
      .map((e) => e.slice(0, e.indexOf("=")));
    assert.deepEqual(
      names.filter((n) => n !== "PATH" && n !== "LANG"),
      [],
    );
    assert.equal(environ.includes("PRIVATE KEY"), false);
    // The proxy sent the channel's headers to the source on ffmpeg's behalf.
    const media = src.requests.filter((q) => q.path.includes(".m4s"));
    assert.ok(media.length > 0);
    for (const q of media.slice(-5)) {
      assert.equal(q.headers.authorization, `Bearer ${TOKEN}`, q.path);
      assert.equal(q.headers.cookie, COOKIE, q.path);
      assert.equal(q.headers["user-agent"], "SVC-Channel/3", q.path);
    }
  });
});
