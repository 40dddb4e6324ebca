import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway, tempDir } from "../harness/gateway-process.js";
import { CHROMIUM, startHlsJsPage } from "../harness/hlsjs-page.js";
import { login, requestJson } from "../harness/http-client.js";
import { playWithFfmpeg, uriLines } from "../harness/media-probe.js";
import { until } from "../harness/until.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import {
  failoverMetric as countFailovers,
  failoverSession,
  mediaPlaylist,
  newestPicture,
  playAcrossSwitch,
  untilActive,
} from "./failover-checks.js";
import { type SwitchableTsOrigin, startSwitchableTsOrigin } from "./switchable-ts-origin.js";

// One encoder for the whole suite (issue 35): every source below is the same stream.
let origin: SwitchableTsOrigin;
let gw: GatewayProcess;
let admin: string;
const scratch = tempDir("svc-failover-");
/** The hls.js page's server (its origin is allowed by the gateway's CORS). */
let page: Awaited<ReturnType<typeof startHlsJsPage>>;

before(async () => {
  origin = await startSwitchableTsOrigin();
  for (const p of ["/a.ts", "/b.ts", "/c.ts"]) origin.set(p, "live");
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
      channels: [
        {
          id: "fo",
          title: "Failover",
          ingress: "ts",
          source_url: `${origin.url}/a.ts`,
          fallback_sources: [
            { source_url: `${origin.url}/b.ts` },
            { source_url: `${origin.url}/c.ts`, headers: { "x-api-key": "backup-secret" } },
          ],
        },
        // Every source down from the start (the origin answers 404 until a test says).
        {
          id: "fz",
          title: "Down at start",
          ingress: "ts",
          source_url: `${origin.url}/z1.ts`,
          fallback_sources: [{ source_url: `${origin.url}/z2.ts` }],
          prefer_height: 1080,
        },
        // Edited by the admin API tests (an edit restarts a channel's session, so not "fo").
        {
          id: "fa",
          title: "Failover",
          ingress: "ts",
          source_url: `${origin.url}/a.ts`,
          fallback_sources: [
            { source_url: `${origin.url}/b.ts` },
            { source_url: `${origin.url}/c.ts`, headers: { "x-api-key": "backup-secret" } },
          ],
        },
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
  rmSync(scratch, { recursive: true, force: true });
});

const play = () => `${gw.url}/v1/play/fo/index.m3u8`;

const session = () => failoverSession(gw.url, admin, "fo");

const media = (url = play()) => mediaPlaylist(url);

async function playlist(url = play()): Promise<string> {
  return (await media(url)).text;
}

/** `svc_failovers_total{reason}` of this gateway. */
const failoverMetric = (reason: string) => countFailovers(gw.url, reason);

async function metricsText(): Promise<string> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const logs = (gw.stderr() + gw.stdout()).split("\n").filter((l) => /source f/.test(l));
  return [...text.split("\n").filter((l) => l.startsWith("svc_failovers")), ...logs].join("\n");
}

describe("failover of a ts channel with two fallback sources (full binary)", () => {
  it("keeps ffmpeg playing across a primary that drops, and switches to the first fallback", async () => {
    await playlist();
    const player = playWithFfmpeg(play(), 25);
    await until("6 segments published", async () =>
      uriLines(await playlist()).length >= 4 ? true : undefined,
    );
    origin.set("/a.ts", "drop");
    const s = await untilActive(session, 1, "the switch to source 1");
    assert.equal(s.failovers, 1);
    const played = await player;
    assert.equal(played.code, 0, played.stderr);
    const text = await playlist();
    assert.match(text, /#EXT-X-DISCONTINUITY\n/);
    assert.match(text, /#EXT-X-DISCONTINUITY-SEQUENCE:\d+\n/);
    assert.equal(await failoverMetric("dropped"), 1);
    assert.match(gw.stderr() + gw.stdout(), /source failover/);
  });

  it("fails back to the primary once it has been healthy for failback_sec", async () => {
    origin.set("/a.ts", "live");
    const s = await untilActive(session, 0, "the failback to source 0");
    assert.equal(s.failovers, 1, "a failback is not a failover");
    assert.match(gw.stderr() + gw.stdout(), /source failback/);
    assert.equal(s.state, "running");
  });

  it("leaves a source that falls silent (5 s without a byte) or sends no video", async () => {
    origin.set("/a.ts", "stall");
    await until("the switch away from the silent primary", async () =>
      (await session()).active_source === 1 ? true : undefined,
    );
    assert.equal(await failoverMetric("no_bytes"), 1, await metricsText());
    origin.set("/a.ts", 403);
    origin.set("/b.ts", "audio");
    await until("the switch away from the audio-only source", async () =>
      (await session()).active_source === 2 ? true : undefined,
    );
    assert.equal(await failoverMetric("no_video"), 1);
    assert.equal(await newestPicture(play(), scratch), "320,180");
  });

  it("plays the slate while every source is down, then resumes the real stream", async () => {
    origin.set("/b.ts", 500);
    origin.set("/c.ts", 404);
    await until("the slate in the output", async () =>
      (await newestPicture(play(), scratch)) === "1280,720" ? true : undefined,
    );
    // The slate can start before the last source's error is counted (when the source that
    // was just dropped had not delivered, three failures in a row came sooner); the sources
    // are retried behind the slate, so both HTTP errors are counted soon after.
    await until("two http_error failovers counted", async () =>
      (await failoverMetric("http_error")) >= 2 ? true : undefined,
    ).catch(async (err) => assert.fail(`${err}\n${await metricsText()}`));
    const slate = await playWithFfmpeg(play(), 4);
    assert.equal(slate.code, 0, slate.stderr);
    origin.set("/c.ts", "live");
    await until("the real stream again", async () =>
      (await newestPicture(play(), scratch)) === "320,180" ? true : undefined,
    );
    const s = await session();
    assert.equal(s.active_source, 2);
    assert.ok(s.failovers >= 5, `${s.failovers} failovers`);
    assert.match(await playlist(), /#EXT-X-DISCONTINUITY\n/);
  });

  it("keeps hls.js in Chromium playing across a switch: 25 s of playback, no fatal error", {
    skip: existsSync(CHROMIUM) ? false : "chromium is not installed",
  }, async () => {
    // Now on source 2 (c), a and b failing. Once hls.js plays, a comes back as c drops
    // (together, so no failback moves the channel first): c → a, the next in order.
    await playAcrossSwitch({
      pageOrigin: page.origin,
      url: play(),
      session,
      switchSources: () => {
        origin.set("/a.ts", "live");
        origin.set("/c.ts", "drop");
        return untilActive(session, 0, "the switch from c to a");
      },
      activeAfter: 0,
    });
  });
});

describe("a ts channel whose sources are all down when it starts", () => {
  it("plays the slate in its resolution class at once, then the first source that comes up", async () => {
    const url = `${gw.url}/v1/play/fz/index.m3u8`;
    assert.equal(await newestPicture(url, scratch), "1920,1080");
    const slate = await playWithFfmpeg(url, 4);
    assert.equal(slate.code, 0, slate.stderr);
    origin.set("/z2.ts", "live");
    await until("the real stream", async () =>
      (await newestPicture(url, scratch)) === "320,180" ? true : undefined,
    );
    assert.match(await playlist(url), /#EXT-X-DISCONTINUITY\n/);
  });
});

describe("fallback_sources in the admin API", () => {
  const channelUrl = () => `${gw.url}/v1/admin/channels/fa`;

  it("shows the fallback sources with sensitive header values blanked", async () => {
    const r = await requestJson(channelUrl(), { token: admin });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.channel.fallback_sources, [
      { source_url: `${origin.url}/b.ts`, upstream: "", path: "", headers: {}, user_agent: "" },
      {
        source_url: `${origin.url}/c.ts`,
        upstream: "",
        path: "",
        headers: { "x-api-key": "" },
        user_agent: "",
      },
    ]);
    assert.doesNotMatch(r.text, /backup-secret/);
  });

  it("keeps a blank secret on the same origin and drops it when the source moves", async () => {
    const current = (await requestJson(channelUrl(), { token: admin })).body.channel;
    const body = (fallbacks: unknown[]) => ({
      id: "fa",
      title: "Failover",
      ingress: "ts",
      source_url: `${origin.url}/a.ts`,
      fallback_sources: fallbacks,
    });
    const same = await requestJson(channelUrl(), {
      method: "PUT",
      token: admin,
      body: body(current.fallback_sources),
    });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.dropped_secrets, undefined);
    const moved = await requestJson(channelUrl(), {
      method: "PUT",
      token: admin,
      body: body([
        current.fallback_sources[0],
        { ...current.fallback_sources[1], source_url: "http://localhost:9/c.ts" },
      ]),
    });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(moved.body.dropped_secrets, ["fallback_sources[1].headers.x-api-key"]);
  });

  it("refuses a fallback source without a source, or with both forms", async () => {
    const write = (fallbacks: unknown[]) =>
      requestJson(channelUrl(), {
        method: "PUT",
        token: admin,
        body: {
          id: "fa",
          title: "Failover",
          ingress: "ts",
          source_url: `${origin.url}/a.ts`,
          fallback_sources: fallbacks,
        },
      });
    const none = await write([{ headers: {} }]);
    assert.equal(none.status, 400);
    assert.equal(none.body.error.code, "invalid_request");
    assert.match(none.body.error.message, /^fallback_sources\[0\]\.source_url: required/);
    const both = await write([{ source_url: `${origin.url}/b.ts`, upstream: "x", path: "/b" }]);
    assert.equal(both.status, 400);
    assert.match(both.body.error.message, /fallback_sources\[0\]\.source_url/);
    const unknown = await write([{ extra: 1, source_url: `${origin.url}/b.ts` }]);
    assert.equal(unknown.status, 400);
  });
});
