import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { CHROMIUM, startHlsJsPage } from "../harness/hlsjs-page.js";
import { login } from "../harness/http-client.js";
import { playWithFfmpeg, uriLines } from "../harness/media-probe.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { readFor } from "../ts/stream-ts-checks.js";
import {
  failoverMetric as countFailovers,
  failoverSession,
  mediaPlaylist,
  playAcrossSwitch,
  untilActive,
} from "./failover-checks.js";
import { type SwitchableHlsOrigin, startSwitchableHlsOrigin } from "./switchable-hls-origin.js";

// Extensions "Fallback sources and the slate" for `hls` channels (issue 35 items 2-4): a
// channel with fallback sources is published from a gateway-owned playlist (the TS engine
// reading its sources' playlists), switches on HTTP errors and on a playlist that stops
// advancing, and fails back by playlist polls. One encoder for the suite: every source is
// the same live HLS stream (1 s segments).
let origin: SwitchableHlsOrigin;
let gw: GatewayProcess;
let admin: string;
/** The hls.js page's server (its origin is allowed by the gateway's CORS). */
let page: Awaited<ReturnType<typeof startHlsJsPage>>;

before(async () => {
  origin = await startSwitchableHlsOrigin();
  page = await startHlsJsPage();
  gw = await startGateway(
    "full",
    {
      auth: authSection(),
      security: {
        allowed_hosts: ["127.0.0.1"],
        play_require_auth: false,
        cors_origins: [page.origin],
      },
      media: { failback_sec: 6 },
      extensions: { ts_output: true },
      channels: [
        {
          id: "ho",
          title: "HLS failover",
          ingress: "hls",
          source_url: `${origin.url}/a/index.m3u8`,
          fallback_sources: [
            { source_url: `${origin.url}/b/index.m3u8` },
            { source_url: `${origin.url}/c/index.m3u8` },
          ],
        },
        // Without fallback sources: today's rewrite path, untouched.
        { id: "plain", title: "Plain", ingress: "hls", source_url: `${origin.url}/p/index.m3u8` },
      ],
    },
    { env: { SVC_LOG_LEVEL: "info" } },
  );
  admin = await login(gw.url, "admin", ADMIN_PASSWORD);
});
after(async () => {
  await gw?.stop();
  await origin?.stop();
  await page?.close();
});

const play = (id = "ho") => `${gw.url}/v1/play/${id}/index.m3u8`;

const session = () => failoverSession(gw.url, admin, "ho");

const media = mediaPlaylist;

/** `svc_failovers_total{reason}` of this gateway. */
const failoverMetric = (reason: string) => countFailovers(gw.url, reason);

describe("failover of an hls channel with two fallback sources (full binary)", () => {
  it("publishes its own playlist: segments under live/, not the source's URLs", async () => {
    const m = await until("segments in the gateway's playlist", async () => {
      const got = await media(play());
      return uriLines(got.text).length >= 3 ? got : undefined;
    });
    for (const uri of uriLines(m.text)) {
      const abs = new URL(uri, m.url).href;
      assert.ok(abs.startsWith(`${gw.url}/v1/play/ho/live/`), abs);
    }
    // The channel without fallback sources keeps the rewrite path (signed u/ URLs).
    const plain = await media(play("plain"));
    assert.match(plain.text, /\/u\//);
  });

  it("keeps ffmpeg playing across a primary that answers 404, on the first fallback", async () => {
    const player = playWithFfmpeg(play(), 20);
    await sleep(4_000);
    origin.set("a", 404);
    const s = await untilActive(session, 1, "the switch to source 1");
    assert.equal(s.failovers, 1);
    const played = await player;
    assert.equal(played.code, 0, played.stderr);
    assert.match((await media(play())).text, /#EXT-X-DISCONTINUITY\n/);
    assert.equal(await failoverMetric("http_error"), 1);
    assert.match(gw.stderr() + gw.stdout(), /source failover/);
  });

  it("probes the primary by its playlist only, then fails back after failback_sec", async () => {
    const segmentsBefore = origin.segmentRequests("a");
    const playlistsBefore = origin.playlistRequests("a");
    origin.set("a", "live");
    // Less than failback_sec (6 s): still on the fallback, the primary polled, not pulled.
    await sleep(3_000);
    assert.equal((await session()).active_source, 1);
    assert.ok(origin.playlistRequests("a") > playlistsBefore, "the primary's playlist is polled");
    assert.equal(origin.segmentRequests("a"), segmentsBefore, "no segment of the primary");
    const s = await untilActive(session, 0, "the failback to source 0");
    assert.equal(s.failovers, 1, "a failback is not a failover");
    assert.match(gw.stderr() + gw.stdout(), /source failback/);
    assert.equal(s.state, "running");
  });

  it("leaves a source whose live playlist stops advancing (three target durations)", async () => {
    origin.set("a", "frozen");
    await until("the switch away from the frozen primary", async () =>
      (await session()).active_source === 1 ? true : undefined,
    );
    assert.equal(await failoverMetric("stalled"), 1);
    const played = await playWithFfmpeg(play(), 4);
    assert.equal(played.code, 0, played.stderr);
  });

  it("serves stream.ts from the same session, continuing across a switch", async () => {
    const reading = readFor(`${gw.url}/v1/play/ho/stream.ts`, 8_000);
    await sleep(3_000);
    origin.set("b", 500);
    const read = await reading;
    assert.equal(read.status, 200);
    assert.equal(read.type, "video/mp2t");
    assert.ok(read.bytes.length > 100 * 188, `${read.bytes.length} bytes`);
    assert.equal((await session()).active_source, 2);
  });

  it("keeps hls.js in Chromium playing across a switch: 25 s of playback, no fatal error", {
    skip: existsSync(CHROMIUM) ? false : "chromium is not installed",
  }, async () => {
    // Now on source 2 (c), a frozen and b failing. Once hls.js plays, a comes back as c
    // fails (together, so no failback moves the channel first): c → a, the next in order.
    await playAcrossSwitch({
      pageOrigin: page.origin,
      url: play(),
      session,
      switchSources: () => {
        origin.set("a", "live");
        origin.set("c", 404);
        return until("the switch away from c", async () =>
          (await session()).active_source !== 2 ? true : undefined,
        );
      },
      activeAfter: 0,
    });
  });
});
