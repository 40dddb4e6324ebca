import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createRateLimiter } from "@svc/core/auth";
import {
  type ClusterViewerLeases,
  createClusterViewerLeases,
  type LeaseOutcome,
} from "@svc/playback/play";
import { createMigratedDatabase, POSTGRES_MISSING } from "@svc/test-kits/private-postgres";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { PgStateDb } from "../db/pg-client.js";
import * as pgSchema from "../db/schema-pg/index.js";
import { createPgRateLimiter } from "./login-windows/postgres.js";
import { migrateUnderLock } from "./postgres/migrate.js";
import { createPgViewerSeatStore } from "./viewer-seats/postgres.js";

/**
 * Issue 15 item 5 against a real PostgreSQL (a private server on loopback):
 * two instances, each with its own pool, on one database. Times are passed in
 * (the stores compare the clock they are given), and the background flush is
 * pushed out of the test's way so each flush happens where the test says.
 */

const KEY = Buffer.from("cluster-lease-test-key-32-bytes!");
const HOLDER = "/v1/play\0token=abc";
const TTL = 1_000;
const NEVER = 3_600_000;

/** One instance's handle on the shared database: its own pool. */
interface Instance {
  readonly db: PgStateDb;
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
const leaseSets: ClusterViewerLeases[] = [];
after(async () => {
  for (const l of leaseSets) await l.close().catch(() => {});
  for (const close of closers) await close().catch(() => {});
});

/** A fresh database (the committed migrations applied) and `n` instances on it. */
async function cluster(n: number): Promise<Instance[]> {
  const first = await createMigratedDatabase(
    {
      migrate: migrateUnderLock,
      connect: (pool) => drizzle(pool, { schema: pgSchema }) as PgStateDb,
    },
    { max: 4 },
  );
  closers.push(first.close);
  const out: Instance[] = [first];
  for (let i = 1; i < n; i++) {
    const pool = new pg.Pool({ connectionString: first.url, max: 4 });
    let ended: Promise<void> | undefined;
    const close = () => {
      ended ??= pool.end();
      return ended;
    };
    closers.push(close);
    out.push({ db: drizzle(pool, { schema: pgSchema }) as PgStateDb, close });
  }
  return out;
}

async function instances(): Promise<[Seats, Seats]> {
  const [a, b] = await cluster(2);
  return [seats(a!, "A"), seats(b!, "B")];
}

interface Seats {
  readonly db: PgStateDb;
  readonly leases: ClusterViewerLeases;
  readonly errors: string[];
  close(): Promise<void>;
}

function seats(instance: Instance, name: string): Seats {
  const errors: string[] = [];
  const leases = createClusterViewerLeases({
    key: KEY,
    store: createPgViewerSeatStore(instance.db, name),
    ttlMs: TTL,
    flushMs: NEVER,
    onError: (_err, what) => errors.push(what),
  });
  leaseSets.push(leases);
  return { db: instance.db, leases, errors, close: instance.close };
}

const seatRows = async (db: PgStateDb) =>
  (
    await db.$client.query<{
      channel_id: string;
      lease_id: string;
      expires_at: string;
      instance: string;
    }>(
      "SELECT channel_id, lease_id, expires_at, instance FROM viewer_seats ORDER BY expires_at, lease_id",
    )
  ).rows;

const minted = (o: LeaseOutcome): string => {
  assert.equal(o.kind, "minted");
  return o.kind === "minted" ? o.lease : "";
};

describe("cluster viewer seats (max_viewers across instances)", { skip: POSTGRES_MISSING }, () => {
  it("max_viewers=2: a seat minted on A and one on B fill the channel; a third is refused on either", async () => {
    const [a, b] = await instances();
    const t0 = Date.now();
    const onA = minted(await a.leases.admit("ch", HOLDER, 2, undefined, t0));
    const onB = minted(await b.leases.admit("ch", HOLDER, 2, undefined, t0));
    assert.notEqual(onA, onB);
    assert.deepEqual(await a.leases.admit("ch", HOLDER, 2, undefined, t0 + 10), { kind: "full" });
    assert.deepEqual(await b.leases.admit("ch", HOLDER, 2, undefined, t0 + 10), { kind: "full" });
    // Another channel counts its own seats.
    minted(await b.leases.admit("other", HOLDER, 2, undefined, t0 + 10));
    const rows = await seatRows(a.db);
    assert.deepEqual(
      rows
        .filter((r) => r.channel_id === "ch")
        .map((r) => `${r.instance} ${Number(r.expires_at) - t0}`)
        .sort(),
      [`A ${TTL}`, `B ${TTL}`],
    );
    // The rows carry the lease ids, never the signatures.
    for (const r of rows) assert.match(r.lease_id, /^[A-Za-z0-9_-]{16}$/);
    assert.deepEqual([...a.errors, ...b.errors], []);
  });

  it("a lease minted on A renews on B (verified by the shared key), then in memory only", async () => {
    const [a, b] = await instances();
    const t0 = Date.now();
    const lease = minted(await a.leases.admit("ch", HOLDER, 1, undefined, t0));
    // B has never seen it: one claim in the database finds A's live seat and keeps it.
    const first = b.leases.admit("ch", HOLDER, 1, lease, t0 + 100);
    assert.ok(first instanceof Promise, "an unknown lease is checked in the database");
    assert.deepEqual(await first, { kind: "renewed" });
    // Now B holds it: answered synchronously, no round trip.
    const again = b.leases.admit("ch", HOLDER, 1, lease, t0 + 200);
    assert.deepEqual(again, { kind: "renewed" });
    assert.equal(b.leases.active("ch", t0 + 200), 1);
    // Still one seat: the channel (max 1) is full for a newcomer on either instance.
    assert.deepEqual(await a.leases.admit("ch", HOLDER, 1, undefined, t0 + 300), { kind: "full" });
    assert.deepEqual(await b.leases.admit("ch", HOLDER, 1, undefined, t0 + 300), { kind: "full" });
    const rows = await seatRows(a.db);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.instance, "B");
    assert.equal(Number(rows[0]!.expires_at), t0 + 100 + TTL);
    // The renewal at t0+200 is in memory until B flushes.
    await b.leases.flush(t0 + 250);
    assert.equal(Number((await seatRows(a.db))[0]!.expires_at), t0 + 200 + TTL);
  });

  it("refuses a forged lease, another channel's and another credential's on the other instance", async () => {
    const [a, b] = await instances();
    const t0 = Date.now();
    const lease = minted(await a.leases.admit("ch", HOLDER, 3, undefined, t0));
    const [id, sig] = lease.split(".") as [string, string];
    const forged = `${id}.${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`;
    assert.deepEqual(b.leases.admit("ch", HOLDER, 3, forged, t0), { kind: "bad_signature" });
    assert.deepEqual(b.leases.admit("ch2", HOLDER, 3, lease, t0), { kind: "bad_signature" });
    assert.deepEqual(b.leases.admit("ch", "another", 3, lease, t0), { kind: "bad_signature" });
    assert.equal((await seatRows(a.db)).length, 1);
  });

  it("a seat frees when its lease lapses; a renewed lease keeps its seat through the batched flush", async () => {
    const [a, b] = await instances();
    const t0 = Date.now();
    const keeps = minted(await a.leases.admit("ch", HOLDER, 2, undefined, t0));
    minted(await b.leases.admit("ch", HOLDER, 2, undefined, t0)); // this viewer stops
    // The first viewer keeps polling on A; A writes its renewal in a batch.
    assert.deepEqual(a.leases.admit("ch", HOLDER, 2, keeps, t0 + 800), { kind: "renewed" });
    await a.leases.flush(t0 + 900);
    // Past the stopped viewer's TTL, a newcomer on B takes its seat, the kept one holds.
    const newcomer = minted(await b.leases.admit("ch", HOLDER, 2, undefined, t0 + 1_200));
    assert.deepEqual(await b.leases.admit("ch", HOLDER, 2, undefined, t0 + 1_200), {
      kind: "full",
    });
    // The flush deletes the expired seat row.
    await b.leases.flush(t0 + 1_300);
    const rows = await seatRows(a.db);
    assert.deepEqual(
      rows.map((r) => Number(r.expires_at)).sort(),
      [t0 + 800 + TTL, t0 + 1_200 + TTL].sort(),
    );
    assert.ok(newcomer !== keeps);
  });

  it("a lapsed lease is not readmitted over the limit (it counts again, across instances)", async () => {
    const [a, b] = await instances();
    const t0 = Date.now();
    const old = minted(await a.leases.admit("ch", HOLDER, 1, undefined, t0));
    minted(await b.leases.admit("ch", HOLDER, 1, undefined, t0 + 1_100));
    // On A the lapsed lease is unknown again: the database counts B's seat, the channel is full.
    assert.deepEqual(await a.leases.admit("ch", HOLDER, 1, old, t0 + 1_150), { kind: "full" });
    assert.deepEqual(await b.leases.admit("ch", HOLDER, 1, old, t0 + 1_150), { kind: "full" });
  });

  it("a renewal whose seat lapsed in the database is not revived by the flush: the next request counts", async () => {
    const [a, b] = await instances();
    const t0 = Date.now();
    const lease = minted(await a.leases.admit("ch", HOLDER, 1, undefined, t0));
    // A renews in memory at t0+900 but stalls: its flush only runs after the stored expiry.
    assert.deepEqual(a.leases.admit("ch", HOLDER, 1, lease, t0 + 900), { kind: "renewed" });
    minted(await b.leases.admit("ch", HOLDER, 1, undefined, t0 + 1_050));
    await a.leases.flush(t0 + 1_100);
    const rows = await seatRows(a.db);
    assert.deepEqual(
      rows.map((r) => r.instance),
      ["B"],
    );
    // A forgot the seat: the lease's next request is counted, and the channel is full.
    const next = a.leases.admit("ch", HOLDER, 1, lease, t0 + 1_150);
    assert.ok(next instanceof Promise);
    assert.deepEqual(await next, { kind: "full" });
  });

  it("concurrent first requests on both instances never pass the limit (the per-channel lock)", async () => {
    const [a, b] = await instances();
    const t0 = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? a : b).leases.admit("ch", HOLDER, 5, undefined, t0),
      ),
    );
    assert.equal(outcomes.filter((o) => o.kind === "minted").length, 5);
    assert.equal(outcomes.filter((o) => o.kind === "full").length, 19);
    assert.equal((await seatRows(a.db)).length, 5);
  });

  it("without the database, held seats keep renewing in memory and new viewers get `unavailable`", async () => {
    const [a] = await instances();
    const t0 = Date.now();
    const lease = minted(await a.leases.admit("ch", HOLDER, 5, undefined, t0));
    await a.close();
    assert.deepEqual(a.leases.admit("ch", HOLDER, 5, lease, t0 + 100), { kind: "renewed" });
    assert.deepEqual(await a.leases.admit("ch", HOLDER, 5, undefined, t0 + 100), {
      kind: "unavailable",
    });
    await a.leases.flush(t0 + 200);
    assert.deepEqual(a.errors, ["viewer seat claim", "viewer seat renewal", "viewer seat sweep"]);
    // The renewal is kept for the next flush.
    assert.deepEqual(a.leases.admit("ch", HOLDER, 5, lease, t0 + 300), { kind: "renewed" });
  });
});

describe("cluster login limiter (login_windows)", { skip: POSTGRES_MISSING }, () => {
  it("two instances share one window per key: the quota holds across them", async () => {
    const [sa, sb] = await cluster(2);
    const a = createPgRateLimiter(sa!.db, { perMinute: 3, local: createRateLimiter(3) });
    const b = createPgRateLimiter(sb!.db, { perMinute: 3, local: createRateLimiter(3) });
    const t = Date.now();
    const seen = [
      await a.take("login:192.0.2.1", t),
      await b.take("login:192.0.2.1", t + 1),
      await a.take("login:192.0.2.1", t + 2),
      await b.take("login:192.0.2.1", t + 3),
      await a.take("login:192.0.2.1", t + 4),
    ];
    assert.deepEqual(seen, [true, true, true, false, false]);
    // Another key has its own window.
    assert.equal(await b.take("login:192.0.2.2", t + 5), true);
    assert.equal(b.retryAfterSec("login:192.0.2.1", t + 30_000), 30);
    // A new window a minute after the first attempt, on either instance.
    assert.equal(await b.take("login:192.0.2.1", t + 60_000), true);
    const rows = (
      await sa!.db.$client.query<{ key: string; window_start: string; count: number }>(
        "SELECT key, window_start, count FROM login_windows ORDER BY key",
      )
    ).rows;
    assert.deepEqual(
      rows.map((r) => [r.key, Number(r.window_start), r.count]),
      [
        ["login:192.0.2.1", t + 60_000, 1],
        ["login:192.0.2.2", t + 5, 1],
      ],
    );
  });

  it("expired windows are deleted; without the database each instance falls back to its own count", async () => {
    const [, s] = await cluster(2);
    const errors: unknown[] = [];
    const limiter = createPgRateLimiter(s!.db, {
      perMinute: 2,
      local: createRateLimiter(2),
      onError: (err) => errors.push(err),
    });
    const t = Date.now();
    assert.equal(await limiter.take("login:198.51.100.7", t), true);
    // Two minutes later the next take sweeps the old window away (in the background).
    assert.equal(await limiter.take("cred:admin:198.51.100.8", t + 120_000), true);
    const deadline = Date.now() + 5_000;
    let keys: string[] = [];
    for (;;) {
      keys = (await s!.db.$client.query<{ key: string }>("SELECT key FROM login_windows")).rows.map(
        (r) => r.key,
      );
      if (keys.length === 1 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(keys, ["cred:admin:198.51.100.8"]);
    await s!.close();
    assert.deepEqual(
      [
        await limiter.take("login:203.0.113.4", t + 130_000),
        await limiter.take("login:203.0.113.4", t + 130_001),
        await limiter.take("login:203.0.113.4", t + 130_002),
      ],
      [true, true, false],
    );
    assert.equal(limiter.retryAfterSec("login:203.0.113.4", t + 130_002), 60);
    assert.ok(errors.length >= 3);
  });
});
