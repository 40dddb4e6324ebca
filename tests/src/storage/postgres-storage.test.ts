import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openPostgresStorage } from "@svc/admin-api/storage/postgres/open";
import { bumpVersion } from "@svc/admin-api/storage/postgres/versions";
import type { Storage } from "@svc/admin-api/storage/storage";
import { freePort } from "../harness/free-port.js";
import { createDatabase, POSTGRES_MISSING } from "../harness/postgres-server.js";
import { until } from "../harness/until.js";

/** Every table of `packages/admin-api/src/db/tables`, as the PostgreSQL migrations create them. */
const TABLES = [
  "api_token_audit",
  "api_tokens",
  "channel_leases",
  "channels",
  "credential_overrides",
  "egress_config",
  "guide_channels",
  "guide_programmes",
  "guide_source_status",
  "guide_sources",
  "login_windows",
  "m3u_source_status",
  "m3u_sources",
  "playback_access_log",
  "playback_keys",
  "settings",
  "state_markers",
  "state_versions",
  "viewer_seats",
];

const journal = JSON.parse(
  readFileSync(
    fileURLToPath(import.meta.resolve("@svc/admin-api/drizzle-pg/meta/_journal.json")),
    "utf8",
  ),
) as { entries: { tag: string }[] };

const opened: Storage[] = [];
after(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

async function open(url: string, pollIntervalMs?: number): Promise<Storage> {
  const s = await openPostgresStorage(
    url,
    undefined,
    pollIntervalMs === undefined ? {} : { pollIntervalMs },
  );
  opened.push(s);
  return s;
}

async function freshDatabase(): Promise<string> {
  const url = await createDatabase();
  assert.ok(url !== undefined);
  return url;
}

/** Two storages on one fresh database, as two instances; `b` polls every `bPollMs`. */
async function twoInstances(bPollMs?: number): Promise<{ a: Storage; b: Storage }> {
  const url = await freshDatabase();
  return { a: await open(url), b: await open(url, bPollMs) };
}

const query = async (s: Storage, text: string) => (await s.pg!.$client.query(text)).rows;

const bump = (s: Storage, resource: Parameters<typeof bumpVersion>[1]) =>
  s.pg!.transaction((tx) => bumpVersion(tx, resource));

describe("PostgreSQL storage (server.database_url)", { skip: POSTGRES_MISSING }, () => {
  it("opens a fresh database: every table created, each migration recorded, no password in location", async () => {
    const url = await freshDatabase();
    const s = await open(url);
    assert.equal(s.kind, "postgres");
    assert.equal(s.sqlite, undefined);
    const u = new URL(url);
    assert.equal(s.location, `postgres://${u.username}@${u.host}${u.pathname}`);
    assert.ok(!s.location.includes(u.password));
    const tables = await query(
      s,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    assert.deepEqual(
      tables.map((r) => r.table_name),
      TABLES,
    );
    const applied = await query(s, "SELECT hash FROM drizzle.__drizzle_migrations");
    assert.equal(applied.length, journal.entries.length);
    // Through drizzle with the pg-core schema: bigint epoch ms read back as numbers, jsonb as values.
    await s.pg!.$client.query(
      `INSERT INTO api_tokens (id, name, token_prefix, digest, scopes, created_by, created_at, updated_at)
       VALUES ('t1', 'n', 'svc_ab', 'd1', '["admin:read"]', 'admin', 1767225600123, 1767225600123)`,
    );
    const rows = await s.pg!.query.apiTokens.findMany();
    assert.deepEqual(
      rows.map((r) => [r.id, r.createdAt, r.scopes, r.enabled, r.revision]),
      [["t1", 1767225600123, ["admin:read"], true, 1]],
    );
  });

  it("reopening finds the migrations applied and applies nothing twice", async () => {
    const url = await freshDatabase();
    await (await open(url)).close();
    const again = await open(url);
    const applied = await query(again, "SELECT hash FROM drizzle.__drizzle_migrations");
    assert.equal(applied.length, journal.entries.length);
  });

  it("three instances opening one fresh database at once all succeed; the migrations run once (the lock)", async () => {
    const url = await freshDatabase();
    const settled = await Promise.allSettled([open(url), open(url), open(url)]);
    const all = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    assert.deepEqual(
      settled.flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : [])),
      [],
    );
    const applied = await query(all[0]!, "SELECT hash FROM drizzle.__drizzle_migrations");
    assert.equal(applied.length, journal.entries.length);
    const tables = await query(
      all[2]!,
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'",
    );
    assert.equal(tables[0]!.n, TABLES.length);
  });

  it("change feed: a bumpVersion through one storage fires the other's watch within 1 s, only for that resource", async () => {
    const { a, b } = await twoInstances();
    const seen: string[] = [];
    b.feed.watch("channels", async () => {
      seen.push("channels");
    });
    b.feed.watch("settings", async () => {
      seen.push("settings");
    });
    // Nothing changed since b opened: no reload.
    await new Promise((r) => setTimeout(r, 1300));
    assert.deepEqual(seen, []);
    const t0 = Date.now();
    await bump(a, "channels");
    await until("the watch of channels (within 1 s)", () => seen.length > 0 || undefined, 2000);
    assert.ok(Date.now() - t0 < 2000, "a busy host's margin over the contract's 1 s");
    await new Promise((r) => setTimeout(r, 1300));
    assert.deepEqual(seen, ["channels"]);
    const versions = await query(b, "SELECT resource, version FROM state_versions");
    assert.deepEqual(
      versions.map((r) => [r.resource, Number(r.version)]),
      [["channels", 1]],
    );
  });

  it("a write between the open and a store's watch is still followed (the baseline is read at open)", async () => {
    const { a, b } = await twoInstances(100);
    await bump(a, "guide");
    let reloads = 0;
    b.feed.watch("guide", async () => {
      reloads += 1;
    });
    await until("a change made before watch()", () => reloads === 1 || undefined, 2000);
  });

  it("change feed: one resource's reloads never overlap; a failed reload is retried on the next poll", async () => {
    const { a, b } = await twoInstances(100);
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    b.feed.watch("accounts", async () => {
      calls += 1;
      active += 1;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 400));
      active -= 1;
      if (calls === 1) throw new Error("the first reload fails");
    });
    for (let i = 0; i < 5; i++) {
      await bump(a, "accounts");
      await new Promise((r) => setTimeout(r, 120));
    }
    await until(
      "the retry of a failed reload",
      () => (calls >= 2 && active === 0) || undefined,
      5000,
    );
    // Settled: the mirror reflects the last version, so no further reloads.
    const settled = calls;
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(calls, settled);
    assert.equal(maxActive, 1);
  });

  it("change feed: a write's NOTIFY reaches another storage at once, its poll a minute away", async () => {
    const { a, b } = await twoInstances(60_000);
    const seen: string[] = [];
    b.feed.watch("api_tokens", async () => {
      seen.push("api_tokens");
    });
    b.feed.watch("channels", async () => {
      seen.push("channels");
    });
    for (let i = 1; i <= 3; i += 1) {
      await bump(a, "api_tokens");
      // Only the push can do this: the next poll is a minute away.
      await until(`the watch after write ${i}`, () => seen.length === i || undefined, 3000);
    }
    assert.deepEqual(seen, ["api_tokens", "api_tokens", "api_tokens"]);
    // A rolled-back write notifies nobody (NOTIFY is transactional).
    await assert.rejects(
      a.pg!.transaction(async (tx) => {
        await bumpVersion(tx, "channels");
        throw new Error("rolled back");
      }),
    );
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(seen, ["api_tokens", "api_tokens", "api_tokens"]);
  });

  it("change feed: the listener reconnects after its connection is killed, and catches up on the gap", async () => {
    const { a, b } = await twoInstances(60_000);
    let reloads = 0;
    b.feed.watch("playback_keys", async () => {
      reloads += 1;
    });
    const listeners = async () =>
      Number(
        (
          await query(
            a,
            "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'svc-gateway-listen' AND datname = current_database()",
          )
        )[0]!.n,
      );
    assert.equal(await listeners(), 2, "one listening connection per storage");
    await query(
      a,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-gateway-listen' AND datname = current_database()",
    );
    // Written while nobody listens: heard of when the listener is back (it reads the versions).
    await bump(a, "playback_keys");
    await until(
      "the reload of the write made while disconnected",
      () => reloads === 1 || undefined,
      5000,
    );
    await until("both listeners back", async () => (await listeners()) === 2 || undefined, 5000);
    await bump(a, "playback_keys");
    await until(
      "the reload of a write after the reconnect",
      () => reloads === 2 || undefined,
      3000,
    );
  });

  it("catchUp() runs a reload again when the running one may have read before the write", async () => {
    const { a, b } = await twoInstances(100);
    const starts: number[] = [];
    b.feed.watch("channels", async () => {
      starts.push(Date.now());
      await new Promise((r) => setTimeout(r, 400));
    });
    await bump(a, "channels");
    await until("the first reload running", () => starts.length === 1 || undefined, 3000);
    await bump(a, "channels");
    const committed = Date.now();
    await b.feed.catchUp();
    assert.ok(
      starts.some((t) => t >= committed),
      `a reload began after the second write (reloads began at ${starts.map((t) => t - committed)} ms)`,
    );
  });

  it("close() stops the feed: no reload after it", async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await openPostgresStorage(url, undefined, { pollIntervalMs: 100 });
    let reloads = 0;
    b.feed.watch("egress", async () => {
      reloads += 1;
    });
    await b.close();
    await b.close();
    await bump(a, "egress");
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(reloads, 0);
  });

  it("a refused login: a clear error naming the server, never the password", async () => {
    const url = new URL(await freshDatabase());
    url.password = "wrong-password-d41d8cd9";
    const t0 = Date.now();
    await assert.rejects(openPostgresStorage(url.toString()), (err: Error) => {
      assert.match(
        err.message,
        /^cannot connect to PostgreSQL at postgres:\/\/svc_test_\d+@127\.0\.0\.1:\d+\/svc_test_\d+: /,
      );
      assert.match(err.message, /password authentication failed/);
      assert.ok(!err.message.includes("wrong-password-d41d8cd9"));
      return true;
    });
    assert.ok(Date.now() - t0 < 5000);
  });
});

describe("PostgreSQL storage: an unreachable server", () => {
  it("127.0.0.1 on a closed port: rejected within seconds with the reason, no password", async () => {
    const port = await freePort();
    const t0 = Date.now();
    await assert.rejects(
      openPostgresStorage(`postgres://svc:s3cret-pw-0a1b@127.0.0.1:${port}/svc`),
      (err: Error) => {
        assert.equal(
          err.message,
          `cannot connect to PostgreSQL at postgres://svc@127.0.0.1:${port}/svc: connect ECONNREFUSED 127.0.0.1:${port}`,
        );
        return true;
      },
    );
    assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
  });
});
