import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { GatewayError } from "@svc/core/errors";
import type { AppEnv, RunningServer } from "@svc/core/http";
import {
  loopbackEgress,
  runtimeOptions,
  startTestServer,
  testConfig,
} from "@svc/test-kits/playback-fixture";
import type { Context } from "hono";
import type { PlayRequest } from "./delivery/play-request.js";
import { createPlayRoutes } from "./play-routes.js";
import { createPlaybackRuntime } from "./playback-runtime.js";

// The second mount of the play routes (spec "/p/{token}/play/…") through the
// ResolveGrant seam, on a real server and a loopback origin, as the admin
// package will mount it: the key travels in the path, no token in the query.
describe("play routes mounted under a path credential", () => {
  let origin: Server;
  let originUrl: string;
  let gateway: RunningServer;
  const KEY = "v1testkey";
  const egress = loopbackEgress();

  before(async () => {
    origin = createServer((req, res) => {
      if (req.url === "/live.m3u8") {
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
        res.end("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg1.ts\n");
      } else {
        res.writeHead(200, { "content-type": "video/mp2t", "content-length": "5" });
        res.end("bytes");
      }
    });
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const config = testConfig([
      { id: "ch1", title: "one", ingress: "hls", source_url: `${originUrl}/live.m3u8` },
      { id: "ch2", title: "two", ingress: "hls", source_url: `${originUrl}/live.m3u8` },
    ]);
    const runtime = createPlaybackRuntime(
      runtimeOptions(config, {
        egress,
        build: "full",
        signingKey: "route-test-key",
        publicBaseUrl: "https://gw.example",
      }),
    );
    gateway = await startTestServer(config, "full", {
      "/p/:key/play": createPlayRoutes(runtime, {
        resolveGrant: async (c) => {
          const key = c.req.param("key");
          if (key !== KEY) throw new GatewayError("unauthorized", "invalid playback key");
          return { channels: new Set(["ch1"]), pathPrefix: `/p/${key}/play`, urlQuery: "" };
        },
      }),
    });
  });
  after(async () => {
    await gateway.close(100);
    await egress.close();
    origin.close();
  });

  it("writes URLs with the key in the path and no token, and serves them", async () => {
    const r = await fetch(`${gateway.url}/p/${KEY}/play/ch1/index.m3u8`);
    assert.equal(r.status, 200);
    const text = await r.text();
    const seg = text.split("\n").find((l) => l.startsWith("https://"))!;
    assert.match(
      seg,
      /^https:\/\/gw\.example\/p\/v1testkey\/play\/ch1\/u\/[A-Za-z0-9_-]+\.ts\?sig=[A-Za-z0-9_-]{43}$/,
    );
    const local = seg.replace("https://gw.example", gateway.url);
    const media = await fetch(local);
    assert.equal(media.status, 200);
    assert.equal(await media.text(), "bytes");
    assert.equal(media.headers.get("x-frame-options"), "DENY");
  });

  it("answers 401 for a bad key and 403 outside the key's scope", async () => {
    const bad = await fetch(`${gateway.url}/p/wrong/play/ch1/index.m3u8`);
    assert.equal(bad.status, 401);
    assert.deepEqual(await bad.json(), {
      error: { code: "unauthorized", message: "invalid playback key" },
    });
    const scope = await fetch(`${gateway.url}/p/${KEY}/play/ch2/index.m3u8`);
    assert.equal(scope.status, 403);
    assert.equal(((await scope.json()) as { error: { code: string } }).error.code, "forbidden");
  });
});

// Which requests may shared caches keep (docs/playback.md "Cache-Control"): decided once per
// request by the play routes and handed to the local ingress as `sharedCache`.
describe("play routes: sharedCache of a request", () => {
  let gateway: RunningServer;
  const seen: Record<string, boolean | undefined> = {};
  const egress = loopbackEgress();

  before(async () => {
    const dash = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      title: id,
      ingress: "dash",
      source_url: "http://127.0.0.1:9/live.mpd",
      ...extra,
    });
    const config = testConfig([dash("free"), dash("limited", { max_viewers: 5 })]);
    // The local ingress records what the routes decided and answers 204.
    const record = (c: Context<AppEnv>, req: PlayRequest) => {
      seen[`${c.req.path}`] = req.sharedCache;
      return c.body(null, 204);
    };
    const runtime = createPlaybackRuntime(
      runtimeOptions(config, {
        egress,
        build: "full",
        signingKey: "route-test-key",
        localIngress: {
          index: async (c, req) => record(c, req),
          live: async (c, req) => record(c, req),
        },
      }),
    );
    const grant = (open: boolean | undefined) => async () => ({
      channels: null,
      pathPrefix: "",
      urlQuery: open === false ? "token=t" : "",
      ...(open === undefined ? {} : { open }),
    });
    gateway = await startTestServer(config, "full", {
      "/open": createPlayRoutes(runtime, { resolveGrant: grant(true) }),
      "/token": createPlayRoutes(runtime, { resolveGrant: grant(false) }),
      "/key": createPlayRoutes(runtime, { resolveGrant: grant(undefined) }),
    });
  });
  after(async () => {
    await gateway.close(100);
    await egress.close();
  });

  it("is true only for an open grant on a channel without a viewer limit", async () => {
    for (const mount of ["open", "token", "key"]) {
      const r = await fetch(`${gateway.url}/${mount}/free/live/v0-1.m4s?g=abc`);
      assert.equal(r.status, 204);
    }
    // A limited channel's media needs a lease: mint one through index.m3u8 first.
    const minted = await fetch(`${gateway.url}/open/limited/index.m3u8`, { redirect: "manual" });
    assert.equal(minted.status, 307);
    const viewer = new URL(minted.headers.get("location")!).searchParams.get("viewer");
    const r = await fetch(`${gateway.url}/open/limited/live/v0-1.m4s?g=abc&viewer=${viewer}`);
    assert.equal(r.status, 204);
    assert.deepEqual(seen, {
      "/open/free/live/v0-1.m4s": true,
      "/token/free/live/v0-1.m4s": false,
      "/key/free/live/v0-1.m4s": false,
      "/open/limited/live/v0-1.m4s": false,
    });
  });
});
