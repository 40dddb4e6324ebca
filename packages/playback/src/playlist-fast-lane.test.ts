import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type Account, createStaticDirectory } from "@svc/core/auth";
import { createBaseApp, type FastLane, type RunningServer, startServer } from "@svc/core/http";
import type { Logger } from "@svc/core/log";
import {
  loopbackEgress,
  runtimeOptions,
  testConfig,
  testSessionTokens,
} from "@svc/test-kits/playback-fixture";
import { createPlaybackAuthorizer } from "./play-auth.js";
import { jwtPlayGrant } from "./play-grant.js";
import { createPlayRoutes } from "./play-routes.js";
import { createPlaybackRuntime, type PlaybackRuntime } from "./playback-runtime.js";
import { createPlaylistFastLane } from "./playlist-fast-lane.js";

/**
 * A log sink that keeps the access-log lines both paths write (the logger is the app's
 * output, not the code under test): `isLevelEnabled` and `info` as pino has them.
 */
function recordingLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = {
    isLevelEnabled: () => true,
    info: (fields: Record<string, unknown>, msg: string) => {
      if (msg === "request") lines.push(fields);
    },
    warn: () => undefined,
    error: () => undefined,
    debug: () => undefined,
    child: () => log,
  };
  return { log: log as unknown as Logger, lines };
}

const MASTER = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow/index.m3u8\n";
const MEDIA =
  "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n" +
  "#EXTINF:2,\nseg7.ts\n#EXTINF:2,\nseg8.ts\n";

/**
 * Status, headers (without `date` and `x-request-id`) and body of an answer; a minted
 * viewer lease (each request gets its own) is blanked in `location` and the body.
 */
async function answer(r: Response) {
  const headers = Object.fromEntries(
    [...r.headers]
      .filter(([k]) => k !== "date" && k !== "x-request-id")
      .map(([k, v]) => [k, k === "location" ? v.replace(/viewer=[^&]+/, "viewer=…") : v]),
  );
  return {
    status: r.status,
    headers,
    body: (await r.text()).replace(/viewer=[^&\s]+/g, "viewer=…"),
  };
}

// Issue 13 item 1: the cached-playlist fast lane answers exactly what the app answers, and
// leaves every other request to the app. Two listeners over one runtime: the app alone,
// and the fast lane in front of the same app (counting the requests it took).
for (const build of ["full", "lite"] as const) {
  describe(`playlist fast lane (${build} build)`, () => {
    let origin: Server;
    let plain: RunningServer;
    let laned: RunningServer;
    let fast = 0;
    const recorded = recordingLog();
    const egress = loopbackEgress();
    const tokens = testSessionTokens();
    const account = (name: string, channelIds: string[]): Account => ({
      configUsername: name,
      username: name,
      passwordHash: "$2b$04$x",
      role: "viewer",
      channelIds,
      authRevision: 0,
    });
    const issue = (name: string) =>
      tokens
        .issueSession({
          accountKey: name,
          username: name,
          role: "viewer",
          channels: [],
          authRevision: 0,
        })
        .then((t) => t.token);
    let viewer: string;
    let narrow: string;
    let runtime: PlaybackRuntime;
    let src: string;
    /** What the origin answers for the media playlist (a test may move the live edge). */
    let media = MEDIA;

    before(async () => {
      origin = createServer((req, res) => {
        const body =
          req.url === "/master.m3u8" ? MASTER : req.url === "/low/index.m3u8" ? media : undefined;
        if (body === undefined) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
        res.end(body);
      });
      await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
      src = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
      const hls = (id: string, extra: Record<string, unknown> = {}) => ({
        id,
        title: id,
        ingress: "hls",
        source_url: `${src}/master.m3u8`,
        ...extra,
      });
      const config = testConfig([hls("news"), hls("other"), hls("limited", { max_viewers: 3 })], {
        play_require_auth: true,
        cors_origins: ["https://app.example"],
      });
      runtime = createPlaybackRuntime(
        runtimeOptions(config, { egress, build, signingKey: "fast-lane-test-key" }),
      );
      const authorizer = createPlaybackAuthorizer({
        requireAuth: true,
        tokens,
        accounts: createStaticDirectory([account("viewer", []), account("narrow", ["other"])]),
      });
      const app = createBaseApp({ build, config, log: recorded.log });
      app.route("/v1/play", createPlayRoutes(runtime, { resolveGrant: jwtPlayGrant(authorizer) }));
      const lane = createPlaylistFastLane(runtime, { authorizer, log: recorded.log });
      const counted: FastLane = (req, res) => {
        const took = lane(req, res);
        if (took) fast += 1;
        return took;
      };
      plain = await startServer(app, "127.0.0.1:0");
      laned = await startServer(app, "127.0.0.1:0", undefined, counted);
      viewer = await issue("viewer");
      narrow = await issue("narrow");
    });
    after(async () => {
      await plain.close(100);
      await laned.close(100);
      await egress.close();
      origin.close();
    });

    /** The app's answer (warming the caches), then the laned listener's; both returned. */
    const both = async (path: string, init: RequestInit = {}) => {
      const app = await answer(await fetch(`${plain.url}${path}`, init));
      const before = fast;
      const lane = await answer(await fetch(`${laned.url}${path}`, init));
      return { app, lane, took: fast - before };
    };
    /** Generated URLs name the listener they were asked on: compare them on one origin. */
    const onPlain = (text: string) => text.replaceAll(laned.url, plain.url);

    it("answers a cached index.m3u8 poll as the app does, header for header", async () => {
      const { app, lane, took } = await both(`/v1/play/news/index.m3u8?token=${viewer}`);
      assert.equal(took, 1);
      assert.equal(app.status, 200);
      assert.deepEqual({ ...lane, body: onPlain(lane.body) }, app);
      assert.match(app.body, /\/v1\/play\/news\/u\/[^?]+\?sig=[^&]+&token=/);
    });

    it("answers a cached u/ media playlist as the app does, sandbox policy included", async () => {
      const index = await (
        await fetch(`${plain.url}/v1/play/news/index.m3u8?token=${viewer}`)
      ).text();
      const media = index.split("\n").find((l) => l.includes("/u/"))!;
      const path = media.slice(plain.url.length);
      const { app, lane, took } = await both(path);
      assert.equal(took, 1);
      assert.equal(app.status, 200);
      assert.match(app.headers["content-security-policy"] ?? "", /sandbox/);
      assert.deepEqual({ ...lane, body: onPlain(lane.body) }, app);
      assert.match(app.body, /#EXT-X-MEDIA-SEQUENCE:7\n/);
    });

    it("writes the same access-log line as the app (route template, redacted path)", async () => {
      recorded.lines.length = 0;
      await both(`/v1/play/news/index.m3u8?token=${viewer}`);
      assert.equal(recorded.lines.length, 2);
      const strip = ({ reqId: _r, dur_ms: _d, ...rest }: Record<string, unknown>) => rest;
      assert.deepEqual(strip(recorded.lines[1]!), strip(recorded.lines[0]!));
      assert.deepEqual(strip(recorded.lines[0]!), {
        method: "GET",
        route: "/v1/play/:id/index.m3u8",
        path: "/v1/play/news/index.m3u8",
        status: 200,
      });
    });

    if (build === "full")
      it("echoes X-Request-ID in the full build as the app does", async () => {
        const r = await fetch(`${laned.url}/v1/play/news/index.m3u8?token=${viewer}`, {
          headers: { "x-request-id": "trace-42" },
        });
        assert.equal(r.headers.get("x-request-id"), "trace-42");
      });

    const declined: [string, () => string, RequestInit?][] = [
      [
        "a token never verified before (the app verifies it)",
        () => `/v1/play/news/index.m3u8?token=${viewer}x`,
      ],
      ["no credential", () => "/v1/play/news/index.m3u8"],
      ["a channel outside the token's scope", () => `/v1/play/news/index.m3u8?token=${narrow}`],
      ["an unknown channel", () => `/v1/play/nope/index.m3u8?token=${viewer}`],
      [
        "a viewer-limited channel (mints a lease)",
        () => `/v1/play/limited/index.m3u8?token=${viewer}`,
      ],
      ["LL-HLS directives", () => `/v1/play/news/index.m3u8?token=${viewer}&_HLS_skip=YES`],
      ["another query parameter", () => `/v1/play/news/index.m3u8?token=${viewer}&x=1`],
      ["a repeated token", () => `/v1/play/news/index.m3u8?token=${viewer}&token=${viewer}`],
      [
        "an Origin when CORS is configured",
        () => `/v1/play/news/index.m3u8?token=${viewer}`,
        { headers: { origin: "https://app.example" } },
      ],
      [
        "an API token in Authorization",
        () => `/v1/play/news/index.m3u8?token=${viewer}`,
        { headers: { authorization: "Bearer svc_v1_abcdefghijklmnopqrstuvwxyz0123456789" } },
      ],
      ["a HEAD request", () => `/v1/play/news/index.m3u8?token=${viewer}`, { method: "HEAD" }],
    ];
    for (const [what, path, init] of declined)
      it(`leaves ${what} to the app, which answers it`, async () => {
        const { app, lane, took } = await both(path(), init);
        assert.equal(took, 0);
        assert.deepEqual({ ...lane, body: onPlain(lane.body) }, app);
      });

    it("gives each Host and channel its own URLs when one token polls them in turn", async () => {
      // The fast lane remembers a grant's last answer: another Host or channel must not get it.
      const get = (path: string, host: string) =>
        new Promise<string>((resolve, reject) => {
          const { hostname, port } = new URL(laned.url);
          request({ host: hostname, port, path, headers: { host } }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => {
              body += c;
            });
            res.on("end", () => resolve(body));
          })
            .on("error", reject)
            .end();
        });
      const news = `/v1/play/news/index.m3u8?token=${viewer}`;
      const other = `/v1/play/other/index.m3u8?token=${viewer}`;
      await fetch(`${plain.url}${other}`).then((r) => r.text());
      const before = fast;
      const a = await get(news, "a.example:8001");
      const b = await get(news, "b.example:8002");
      const c = await get(other, "b.example:8002");
      const again = await get(news, "a.example:8001");
      assert.equal(fast - before, 4);
      assert.match(a, /^http:\/\/a\.example:8001\/v1\/play\/news\/u\//m);
      assert.doesNotMatch(a, /b\.example/);
      assert.match(b, /^http:\/\/b\.example:8002\/v1\/play\/news\/u\//m);
      assert.doesNotMatch(b, /a\.example/);
      assert.match(c, /^http:\/\/b\.example:8002\/v1\/play\/other\/u\//m);
      assert.doesNotMatch(c, /\/play\/news\//);
      assert.equal(again, a);
    });

    it("keeps no replaced playlist alive through a viewer's remembered answer", async () => {
      // The grant outlives its viewer in the verified-token cache: what the lane remembers
      // for it must not hold an old playlist (and every viewer's rendered copy of it).
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      const index = await (
        await fetch(`${plain.url}/v1/play/news/index.m3u8?token=${viewer}`)
      ).text();
      const path = index
        .split("\n")
        .find((l) => l.includes("/u/"))!
        .slice(plain.url.length);
      const channel = runtime.options.catalog.get("news")!;
      const target = `${src}/low/index.m3u8`;
      // A viewer who polls once through the lane and leaves: its grant stays cached.
      const gone = await issue("viewer");
      const goneMedia = path.replace(viewer, gone);
      await fetch(`${plain.url}${goneMedia}`).then((r) => r.text());
      const before = fast;
      await fetch(`${laned.url}${goneMedia}`).then((r) => r.text());
      assert.equal(fast - before, 1);
      const old = new WeakRef(runtime.playlists.peek(channel, target)!.compiled);

      media = MEDIA.replace("SEQUENCE:7", "SEQUENCE:8").replace("seg7.ts", "seg9.ts");
      try {
        // Past the cached playlist's lifetime (half the 2 s target duration), a poll starts
        // the refresh; the next ones get the new playlist.
        let body = "";
        for (let i = 0; i < 40 && !body.includes("SEQUENCE:8"); i++) {
          await new Promise((r) => setTimeout(r, 100));
          body = await (await fetch(`${laned.url}${path}`)).text();
        }
        assert.match(body, /#EXT-X-MEDIA-SEQUENCE:8\n/);
        for (let i = 0; i < 5 && old.deref() !== undefined; i++) {
          await new Promise((r) => setImmediate(r));
          gc();
        }
        assert.equal(old.deref(), undefined, "the replaced playlist is still reachable");
      } finally {
        media = MEDIA;
      }
    });

    it("takes a credential in Authorization as well as in the query", async () => {
      const { app, lane, took } = await both("/v1/play/news/index.m3u8", {
        headers: { authorization: `Bearer ${viewer}` },
      });
      assert.equal(took, 1);
      assert.equal(app.status, 200);
      assert.deepEqual({ ...lane, body: onPlain(lane.body) }, app);
    });
  });
}
