import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createPgRateLimiter } from "@svc/admin-api/storage/login-windows/postgres";
import { openPostgresStorage } from "@svc/admin-api/storage/postgres/open";
import type { Storage } from "@svc/admin-api/storage/storage";
import { createPgViewerSeatStore } from "@svc/admin-api/storage/viewer-seats/postgres";
import {
  accountsFromConfig,
  createLoginRoute,
  createPasswordHasher,
  createRateLimiter,
  createSessionTokens,
  createStaticDirectory,
  loginResponse,
  resolveSigningKeys,
} from "@svc/core/auth";
import { channelsFromConfig, createStaticCatalog } from "@svc/core/catalog";
import { type GatewayConfig, parseConfig, readEnvironment } from "@svc/core/config";
import { type Egress, egressFromConfig } from "@svc/core/egress";
import { createBaseApp, type RunningServer, startServer } from "@svc/core/http";
import { createLogger } from "@svc/core/log";
import { createPlaybackRuntime, createPlayRoutes, jwtPlayGrant } from "@svc/playback/play";
import { createPlaybackAuthorizer } from "@svc/playback/routes";
import { stringify } from "yaml";
import { hlsFixtures } from "../harness/hls-fixtures.js";
import { ed25519Pair } from "../harness/keys.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { createDatabase, POSTGRES_MISSING } from "../harness/postgres-server.js";
import { hashFor } from "../harness/users.js";
import { FAST_EGRESS, get, playlistUrls } from "../playback/playback-setup.js";

// Two gateway instances in this process, each with its own HTTP server on loopback and its
// own pool, over one PostgreSQL database (issue 15 item 5): the play routes and the login
// route as the full build composes them in cluster mode, the viewer seats and the login
// quota counted in that database. A round-robin balancer is the test sending requests to
// one instance or the other.

const PASSWORD = "password-1";
const SIGNING_KEY = "cluster-shared-signing-key-0123456789";
const LOGIN_QUOTA = 4;

interface Instance {
  readonly url: string;
  /** A session of `admin`, as a login would answer it (without counting a login attempt). */
  session(): Promise<string>;
  stop(): Promise<void>;
}

function configFor(origin: string): GatewayConfig {
  return parseConfig(
    stringify({
      auth: {
        users: [{ username: "admin", password_hash: hashFor(PASSWORD), role: "admin" }],
        token_private_key: keys.privatePem,
        login_rate_per_min: LOGIN_QUOTA,
      },
      server: { data_dir: "/nonexistent-unused" },
      security: { allowed_hosts: ["127.0.0.1"], signing_key: SIGNING_KEY },
      egress: FAST_EGRESS,
      channels: [
        {
          id: "limited",
          title: "Two seats",
          ingress: "hls",
          source_url: `${origin}/vod/v0.m3u8`,
          max_viewers: 2,
        },
        { id: "open", title: "No limit", ingress: "hls", source_url: `${origin}/vod/v0.m3u8` },
      ],
    }),
    readEnvironment(),
  );
}

/** One Ed25519 pair for both: a session minted on one instance verifies on the other. */
const keys = ed25519Pair();

async function startInstance(
  config: GatewayConfig,
  storage: Storage,
  name: string,
): Promise<Instance> {
  const catalog = createStaticCatalog(channelsFromConfig(config.channels), config.upstreams);
  const egress: Egress = egressFromConfig(config);
  const accounts = createStaticDirectory(accountsFromConfig(config));
  const tokens = createSessionTokens({
    keys: resolveSigningKeys(config),
    issuer: config.auth.token_issuer,
    audience: config.auth.token_audience,
    ttlHours: config.auth.token_ttl_hours,
  });
  const runtime = createPlaybackRuntime({
    config,
    catalog,
    egress,
    build: "full",
    signingKey: Buffer.from(config.security.signing_key, "utf8"),
    publicBaseUrl: () => "",
    viewerSeats: createPgViewerSeatStore(storage.pg!, name),
  });
  const limiter = createPgRateLimiter(storage.pg!, {
    perMinute: config.auth.login_rate_per_min,
    local: createRateLimiter(config.auth.login_rate_per_min),
  });
  const app = createBaseApp({
    build: "full",
    config,
    log: createLogger({ level: "error", build: "full" }),
  });
  app.route(
    "/",
    createLoginRoute({ accounts, tokens, limiter, passwords: createPasswordHasher({ cores: 1 }) }),
  );
  const authorizer = createPlaybackAuthorizer({ requireAuth: true, tokens, accounts });
  app.route("/v1/play", createPlayRoutes(runtime, { resolveGrant: jwtPlayGrant(authorizer) }));
  const server: RunningServer = await startServer(app, "127.0.0.1:0");
  return {
    url: server.url,
    session: async () => (await loginResponse(tokens, accounts.find("admin")!)).token,
    async stop() {
      await server.close(0);
      await runtime.leases.close?.();
      await egress.close();
    },
  };
}

describe("limits across two instances on one PostgreSQL", { skip: POSTGRES_MISSING }, () => {
  let origin: Origin;
  let a: Instance;
  let b: Instance;
  const storages: Storage[] = [];

  before(async () => {
    origin = await startOrigin({ root: await hlsFixtures() });
    const config = configFor(origin.url);
    const url = await createDatabase();
    assert.ok(url !== undefined);
    for (let i = 0; i < 2; i++) storages.push(await openPostgresStorage(url));
    a = await startInstance(config, storages[0]!, "A");
    b = await startInstance(config, storages[1]!, "B");
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    for (const s of storages) await s.close();
    await origin?.close();
  });

  it("max_viewers=2: one viewer on each instance fills the channel; a third is 429 on either; a lease moves between them", async () => {
    // Minted on A, played on both (the shared key pair).
    const token = await a.session();
    const index = (gw: Instance) => `${gw.url}/v1/play/limited/index.m3u8?token=${token}`;
    const first = await get(index(a));
    assert.equal(first.status, 307);
    const onA = new URL(first.headers.get("location")!).searchParams.get("viewer")!;
    const second = await get(index(b));
    assert.equal(second.status, 307);
    const onB = new URL(second.headers.get("location")!).searchParams.get("viewer")!;
    assert.notEqual(onA, onB);
    for (const gw of [a, b]) {
      const third = await get(index(gw));
      assert.equal(third.status, 429);
      assert.equal(third.json.error.code, "too_many_requests");
    }
    // The balancer moves the viewer of A to B (and back): its lease plays on both,
    // the playlist's URLs carry it, and a segment through B is served.
    const moved = await get(`${index(b)}&viewer=${onA}`);
    assert.equal(moved.status, 200, moved.text);
    const urls = playlistUrls(moved.text);
    assert.ok(urls.length > 0);
    for (const u of urls) assert.equal(new URL(u).searchParams.get("viewer"), onA);
    const segment = await get(urls[0]!);
    assert.equal(segment.status, 200);
    assert.ok(segment.bytes.length > 0);
    assert.equal((await get(`${index(a)}&viewer=${onA}`)).status, 200);
    assert.equal((await get(`${index(a)}&viewer=${onB}`)).status, 200);
    // Still two seats: moving did not take a third.
    assert.equal((await get(index(a))).status, 429);
    // A channel without max_viewers is not counted at all.
    assert.equal((await get(`${a.url}/v1/play/open/index.m3u8?token=${token}`)).status, 200);
  });

  it("the login quota holds across both instances: attempts alternate, the one past it is 429 on either", async () => {
    const attempt = (gw: Instance) =>
      fetch(`${gw.url}/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "admin", password: "wrong-password" }),
      });
    // Every attempt comes from 127.0.0.1: one key, one window, whichever instance answers.
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_QUOTA + 2; i++) {
      const r = await attempt(i % 2 === 0 ? a : b);
      statuses.push(r.status);
      if (r.status === 429) {
        const after = Number(r.headers.get("retry-after"));
        assert.ok(after >= 1 && after <= 60, String(after));
      }
      await r.arrayBuffer();
    }
    assert.deepEqual(statuses.slice(0, LOGIN_QUOTA), Array(LOGIN_QUOTA).fill(401));
    assert.deepEqual(statuses.slice(LOGIN_QUOTA), [429, 429]);
  });
});
