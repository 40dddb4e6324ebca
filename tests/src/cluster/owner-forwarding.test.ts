import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { pgChannelLeases } from "@svc/admin-api/cluster";
import {
  accountsFromConfig,
  createLoginRoute,
  createPasswordHasher,
  createRateLimiter,
  createSessionTokens,
  createStaticDirectory,
  resolveSigningKeys,
} from "@svc/core/auth";
import { channelsFromConfig, createStaticCatalog } from "@svc/core/catalog";
import { type GatewayConfig, parseConfig, readEnvironment } from "@svc/core/config";
import { type Egress, egressFromConfig } from "@svc/core/egress";
import { createBaseApp, type RunningServer, startServer } from "@svc/core/http";
import { createLogger } from "@svc/core/log";
import {
  type ChannelLeaseStore,
  createPackagingCluster,
  INSTANCE_TOKEN_HEADER,
  joinCluster,
  type PackagingCluster,
} from "@svc/playback/cluster";
import {
  createDashLocalIngress,
  createSessionManager,
  type SessionManager,
} from "@svc/playback/dash-engine";
import {
  createPlaybackRuntime,
  createPlayRoutes,
  jwtPlayGrant,
  type PlaybackRuntime,
} from "@svc/playback/play";
import { createPlaybackAuthorizer } from "@svc/playback/routes";
import type pg from "pg";
import { stringify } from "yaml";
import { reachable } from "../harness/cut-off-leases.js";
import { type DashLiveSource, startDashLiveSource } from "../harness/dash-live-source.js";
import { login } from "../harness/http-client.js";
import { ed25519Pair } from "../harness/keys.js";
import { createMigratedDatabase, POSTGRES_MISSING } from "../harness/postgres-server.js";
import { until } from "../harness/until.js";
import { hashFor } from "../harness/users.js";

// Two gateway instances in this process, each with its own HTTP server on loopback, its
// own session manager and packaging cluster, over one PostgreSQL lease table and one
// live DASH source (issue 15 item 4). The full binary runs in cluster mode once the
// PostgreSQL storage is merged; this suite drives the same playback pieces it composes.

const PASSWORD = "password-1";
const SIGNING_KEY = "cluster-shared-signing-key-0123456789";
/** Short lease timings so a takeover happens within seconds here (defaults: 10 s / 3 s / 2 s). */
const TIMINGS = { ttlMs: 3_000, renewEveryMs: 500, sweepEveryMs: 500 };
/** Operator contract "Cluster mode": a dead owner's channel is taken over within 20 s. */
const TAKEOVER_BOUND_MS = 20_000;

interface Instance {
  url: string;
  manager: SessionManager;
  cluster: PackagingCluster;
  runtime: PlaybackRuntime;
  /** Cut off from the database and the network, as a dead or partitioned host. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

function configFor(mpdUrl: string): GatewayConfig {
  const keys = ed25519Pair();
  return parseConfig(
    stringify({
      auth: {
        users: [{ username: "admin", password_hash: hashFor(PASSWORD), role: "admin" }],
        token_private_key: keys.privatePem,
      },
      server: { data_dir: "/nonexistent-unused" },
      security: {
        allowed_hosts: ["127.0.0.1"],
        signing_key: SIGNING_KEY,
      },
      media: { idle_stop_sec: 600, low_latency: true },
      channels: [
        { id: "live1", title: "Live", ingress: "dash", source_url: mpdUrl },
        { id: "idle1", title: "Nobody watches", ingress: "dash", source_url: mpdUrl },
        {
          id: "auto1",
          title: "Always on",
          ingress: "dash",
          source_url: mpdUrl,
          autostart: true,
          on_demand: false,
        },
      ],
    }),
    readEnvironment(),
  );
}

async function startInstance(config: GatewayConfig, pool: pg.Pool): Promise<Instance> {
  const cut = { on: false };
  const store = reachable(pgChannelLeases(pool), cut);
  const catalog = createStaticCatalog(channelsFromConfig(config.channels), config.upstreams);
  const egress: Egress = egressFromConfig(config);
  const accounts = createStaticDirectory(accountsFromConfig(config));
  const tokens = createSessionTokens({
    keys: resolveSigningKeys(config),
    issuer: config.auth.token_issuer,
    audience: config.auth.token_audience,
    ttlHours: config.auth.token_ttl_hours,
  });
  const signingKey = Buffer.from(config.security.signing_key, "utf8");
  let url = "";
  const membership = joinCluster({ store, selfUrl: () => url, timings: TIMINGS });
  const manager = createSessionManager({
    config,
    catalog,
    egress,
    ownership: membership.ownership,
  });
  const cluster = createPackagingCluster({
    membership,
    sessions: manager,
    catalog,
    signingKey,
    build: "full",
    withCors: false,
    stats: () => runtime.stats,
    timings: TIMINGS,
  });
  const runtime = createPlaybackRuntime({
    config,
    catalog,
    egress,
    build: "full",
    signingKey,
    publicBaseUrl: () => "",
    localIngress: cluster.ingress(
      createDashLocalIngress({
        sessions: manager,
        build: "full",
        withCors: false,
        stats: () => runtime.stats,
      }),
    ),
  });
  const app = createBaseApp({
    build: "full",
    config,
    log: createLogger({ level: "error", build: "full" }),
  });
  app.route(
    "/",
    createLoginRoute({
      accounts,
      tokens,
      limiter: createRateLimiter(1000),
      passwords: createPasswordHasher({ cores: 1 }),
    }),
  );
  const authorizer = createPlaybackAuthorizer({ requireAuth: true, tokens, accounts });
  app.route(
    "/v1/play",
    createPlayRoutes(runtime, {
      resolveGrant: jwtPlayGrant(authorizer),
      acceptForwarded: cluster.acceptForwarded,
    }),
  );
  const server: RunningServer = await startServer(app, "127.0.0.1:0");
  url = server.url;
  cluster.startAutostart();
  let serving = true;
  return {
    url,
    manager,
    cluster,
    runtime,
    async crash() {
      cut.on = true;
      serving = false;
      await server.close(0);
    },
    async stop() {
      if (serving) await server.close(0);
      await manager.close();
      cut.on = false;
      await cluster.close();
      await egress.close();
    },
  };
}

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { redirect: "manual", headers });

/**
 * An instance token written out from its format (docs/cluster.md): HMAC-SHA256 under
 * HMAC(signing_key, label) over the payload and the request it is bound to.
 */
function mintInstanceToken(
  play: { prefix: string; query: string; client: string; sharedCache: boolean },
  target: { channelId: string; resource: string; search: string },
): string {
  const key = createHmac("sha256", Buffer.from(SIGNING_KEY))
    .update("svc instance forward v1")
    .digest();
  const payload = Buffer.from(
    JSON.stringify({
      p: play.prefix,
      q: play.query,
      a: play.client,
      s: play.sharedCache,
      e: Date.now() + 30_000,
    }),
  ).toString("base64url");
  const mac = createHmac("sha256", key)
    .update(`${payload}\n${target.channelId}\n${target.resource}\n${target.search}`)
    .digest("base64url");
  return `v1.${payload}.${mac}`;
}

/** The generation `g` the master playlist's first media playlist URI carries. */
const generationOf = (master: string) => /live\/v0\.m3u8\?g=([^&\s]+)/.exec(master)?.[1];

describe("one packager per channel: play through a non-owner, takeover after the owner dies", {
  skip: POSTGRES_MISSING,
}, () => {
  let src: DashLiveSource;
  let pool: pg.Pool;
  let a: Instance;
  let b: Instance;
  let token: string;
  let oldGeneration: string;
  let oldMediaUrl: string;
  let oldSegmentUrl: string;
  const leaseRow = async (id: string) =>
    (await pool.query("SELECT * FROM channel_leases WHERE channel_id = $1", [id])).rows[0] as
      | Record<string, string>
      | undefined;

  before(async () => {
    src = await startDashLiveSource({ heights: [180], languages: ["eng"] });
    pool = (await createMigratedDatabase()).pool;
    await src.waitForSegments(3);
    const config = configFor(src.mpdUrl);
    a = await startInstance(config, pool);
    b = await startInstance(config, pool);
    token = await login(b.url, "admin", PASSWORD);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await pool?.end();
    await src?.stop();
  });

  it("serves the owner's publication through the other instance, URLs written for the player's host", async () => {
    const q = `token=${encodeURIComponent(token)}`;
    // A's player starts the on-demand channel: A claims the lease and packages it.
    const onA = await get(`${a.url}/v1/play/live1/index.m3u8?${q}`);
    assert.equal(onA.status, 200, await onA.clone().text());
    const masterA = await onA.text();
    const g = generationOf(masterA);
    assert.match(g ?? "", /^1-[0-9a-z]+$/, "lease generation 1, then the packager's counter");
    const row = await leaseRow("live1");
    assert.equal(row?.owner_url, a.url);
    assert.equal(row?.generation, "1");

    // B's player: forwarded to A; B starts no packager of its own.
    const onB = await get(`${b.url}/v1/play/live1/index.m3u8?${q}`);
    assert.equal(onB.status, 200);
    assert.equal(onB.headers.get("content-type"), onA.headers.get("content-type"));
    assert.equal(onB.headers.get("cache-control"), onA.headers.get("cache-control"));
    const masterB = await onB.text();
    assert.equal(generationOf(masterB), g);
    assert.equal(masterB, masterA.replaceAll(a.url, b.url), "the same publication, B's URLs");
    assert.ok(masterB.includes(`${b.url}/v1/play/live1/live/v0.m3u8?g=${g}&${q}`));
    assert.equal(b.manager.get("live1"), undefined, "the non-owner must not package the channel");
    assert.equal(a.manager.get("live1")?.status().generation, g);

    // The media playlist and a segment through B: A's bytes and headers.
    oldMediaUrl = `${b.url}/v1/play/live1/live/v0.m3u8?g=${g}&${q}`;
    const media = await get(oldMediaUrl);
    assert.equal(media.status, 200);
    const text = await media.text();
    assert.match(text, /^#EXTM3U/);
    const segment = [...text.matchAll(/^(v0-\d+\.m4s\?[^\s]+)$/gm)].map((m) => m[1]!).at(-1);
    assert.ok(segment, text);
    assert.ok(segment.includes(`g=${g}`) && segment.includes(q), segment);
    oldSegmentUrl = `${b.url}/v1/play/live1/live/${segment}`;
    const viaB = await get(oldSegmentUrl);
    const direct = await get(`${a.url}/v1/play/live1/live/${segment}`);
    assert.equal(viaB.status, 200);
    assert.equal(direct.status, 200);
    assert.equal(viaB.headers.get("content-type"), "video/mp4");
    assert.equal(viaB.headers.get("cache-control"), direct.headers.get("cache-control"));
    const bytesB = Buffer.from(await viaB.arrayBuffer());
    assert.ok(bytesB.length > 1000);
    assert.ok(bytesB.equals(Buffer.from(await direct.arrayBuffer())), "the same segment bytes");

    // An LL-HLS blocking reload through B waits on A for the next part.
    const msn = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)?.[1]);
    const listed = [...text.matchAll(/^v0-(\d+)\.m4s/gm)].map((m) => Number(m[1]));
    const next = Math.max(msn, ...listed) + 1;
    const blocked = await get(
      `${b.url}/v1/play/live1/live/v0.m3u8?g=${g}&${q}&_HLS_msn=${next}&_HLS_part=0`,
    );
    assert.equal(blocked.status, 200);
    assert.match(await blocked.text(), new RegExp(`v0-${next}\\.0\\.m4s`));

    // Another generation of a playlist: 307 to the current one, at B, with the credential.
    const moved = await get(`${b.url}/v1/play/live1/live/v0.m3u8?g=zz-old&${q}`);
    assert.equal(moved.status, 307);
    assert.equal(moved.headers.get("location"), `${b.url}/v1/play/live1/live/v0.m3u8?g=${g}&${q}`);
    oldGeneration = g!;
  });

  it("serves a forwarded request as the forwarding instance admitted it, on the owner only", async () => {
    const target = { channelId: "live1", resource: "index.m3u8", search: "" };
    const play = {
      prefix: "https://tv.example/p/KEY/play/live1/",
      query: "&viewer=v",
      client: "192.0.2.7",
      sharedCache: false,
    };
    // On the owner: no credential asked, the generated URLs are the forwarding instance's.
    const owner = await get(`${a.url}/v1/play/live1/index.m3u8`, {
      [INSTANCE_TOKEN_HEADER]: mintInstanceToken(play, target),
    });
    assert.equal(owner.status, 200);
    const master = await owner.text();
    assert.match(
      master,
      /https:\/\/tv\.example\/p\/KEY\/play\/live1\/live\/v0\.m3u8\?g=[^&]+&viewer=v/,
    );
    assert.ok(!master.includes(a.url));
    // On an instance that does not own the channel: never forwarded a second time.
    const other = await get(`${b.url}/v1/play/live1/index.m3u8`, {
      [INSTANCE_TOKEN_HEADER]: mintInstanceToken(play, target),
    });
    assert.equal(other.status, 421);
    assert.deepEqual(await other.json(), {
      error: { code: "not_ready", message: "this instance does not package the channel" },
    });
    // The forwarding instance's cache decision travels with the request (docs/playback.md
    // "Cache-Control"): public only for open play without a viewer limit.
    const listing = await (await get(oldMediaUrl)).text();
    const newest = [...listing.matchAll(/^(v0-\d+\.m4s)\?g=([^&\s]+)/gm)].at(-1);
    assert.ok(newest, listing);
    const file = newest[1]!;
    const media = { channelId: "live1", resource: `live/${file}`, search: `?g=${newest[2]}` };
    for (const [sharedCache, scope] of [
      [true, "public"],
      [false, "private"],
    ] as const) {
      const r = await get(`${a.url}/v1/play/live1/live/${file}${media.search}`, {
        [INSTANCE_TOKEN_HEADER]: mintInstanceToken({ ...play, sharedCache }, media),
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("cache-control"), `${scope}, max-age=31536000, immutable`);
      await r.body?.cancel();
    }
    // Bound to its file: the token of index.m3u8 does not open a media playlist.
    const elsewhere = await get(`${a.url}/v1/play/live1/live/v0.m3u8`, {
      [INSTANCE_TOKEN_HEADER]: mintInstanceToken(play, target),
    });
    assert.equal(elsewhere.status, 403);
    await elsewhere.body?.cancel();
  });

  it("checks the credential where the player asked, and refuses a forged instance token", async () => {
    const none = await get(`${b.url}/v1/play/live1/index.m3u8`);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: { code: string } }).error.code, "unauthorized");
    for (const forged of ["v1.e30.AAAA", "garbage", `v1.${"A".repeat(40)}.${"B".repeat(43)}`]) {
      const r = await get(`${a.url}/v1/play/live1/index.m3u8`, {
        [INSTANCE_TOKEN_HEADER]: forged,
      });
      assert.equal(r.status, 403, forged);
      assert.deepEqual(await r.json(), {
        error: { code: "forbidden", message: "invalid instance token" },
      });
    }
  });

  it("claims a channel only for a request that starts it (a playlist), never for media", async () => {
    const q = `token=${encodeURIComponent(token)}`;
    const segment = await get(`${b.url}/v1/play/idle1/live/v0-5.m4s?g=x&${q}`);
    assert.equal(segment.status, 410);
    assert.equal(segment.headers.get("retry-after"), "2");
    await segment.body?.cancel();
    const unknown = await get(`${b.url}/v1/play/idle1/live/x0.m3u8?${q}`);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    assert.equal(await leaseRow("idle1"), undefined);
    assert.equal(b.manager.get("idle1"), undefined);
  });

  it("packages an autostart channel on exactly one instance", async () => {
    const owners = () => [a, b].filter((i) => i.manager.get("auto1") !== undefined).length;
    await until("auto1 packaged", () => (owners() > 0 ? true : undefined), 30_000);
    // Several sweeps of both instances later, still one.
    await new Promise((r) => setTimeout(r, 4 * TIMINGS.sweepEveryMs));
    assert.equal(owners(), 1);
  });

  it("takes the channel over on the survivor within the bound, with a new generation; old URLs follow 307/410", async () => {
    const q = `token=${encodeURIComponent(token)}`;
    const autoOnA = a.manager.get("auto1") !== undefined;
    const crashedAt = Date.now();
    await a.crash();
    // Until the lease expires B cannot reach the owner: a retryable 503, never a packager of its own.
    const early = await get(`${b.url}/v1/play/live1/index.m3u8?${q}`);
    if (early.status !== 200) {
      assert.equal(early.status, 503);
      assert.equal(early.headers.get("retry-after"), "2");
      assert.equal(((await early.json()) as { error: { code: string } }).error.code, "not_ready");
    } else await early.body?.cancel();
    const master = await until(
      "B serves the channel again",
      async () => {
        const r = await get(`${b.url}/v1/play/live1/index.m3u8?${q}`);
        if (r.status !== 200) {
          await r.body?.cancel();
          return undefined;
        }
        return r.text();
      },
      TAKEOVER_BOUND_MS + 10_000,
    );
    const tookMs = Date.now() - crashedAt;
    assert.ok(tookMs < TAKEOVER_BOUND_MS, `playback back after ${tookMs} ms`);
    const g = generationOf(master);
    assert.match(g ?? "", /^2-[0-9a-z]+$/, "lease generation 2");
    assert.notEqual(g, oldGeneration);
    assert.ok(master.includes(`${b.url}/v1/play/live1/live/v0.m3u8?g=${g}&${q}`));
    const row = await leaseRow("live1");
    assert.equal(row?.owner_url, b.url);
    assert.equal(row?.generation, "2");
    assert.equal(b.manager.get("live1")?.status().generation, g);
    await until("A stopped its packager (its lease deadline passed)", () =>
      a.manager.get("live1") === undefined ? true : undefined,
    );

    // Spec "Playback" 2: a playlist of the old generation is redirected to the new one.
    const moved = await get(oldMediaUrl);
    assert.equal(moved.status, 307);
    assert.equal(moved.headers.get("location"), `${b.url}/v1/play/live1/live/v0.m3u8?g=${g}&${q}`);
    // A segment of the old generation: 307 when the new window holds that number, else 410.
    const old = await get(oldSegmentUrl);
    await old.body?.cancel();
    if (old.status === 307) assert.match(old.headers.get("location") ?? "", new RegExp(`g=${g}&`));
    else {
      assert.equal(old.status, 410);
      assert.equal(old.headers.get("retry-after"), "2");
    }

    if (autoOnA)
      await until(
        "B took the autostart channel over",
        () => (b.manager.get("auto1") !== undefined ? true : undefined),
        TAKEOVER_BOUND_MS,
      );
    assert.notEqual(b.manager.get("auto1"), undefined);
  });
});
