import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pgChannelLeases, singleInstanceLeases } from "@svc/admin-api/cluster";
import { type ChannelLeaseStore, createChannelOwnership } from "@svc/playback/cluster";
import type pg from "pg";
import { reachable } from "../harness/cut-off-leases.js";
import { createMigratedDatabase, POSTGRES_MISSING } from "../harness/postgres-server.js";
import { until } from "../harness/until.js";

// The packaging leases of cluster mode (issue 15 item 4) against a real PostgreSQL: two
// "instances" are two holders (and two pools) on one database.

const A = { id: "instance-a", url: "http://127.0.0.1:1" };
const B = { id: "instance-b", url: "http://127.0.0.1:2" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("channel leases on PostgreSQL", { skip: POSTGRES_MISSING }, () => {
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  let a: ChannelLeaseStore;
  let b: ChannelLeaseStore;
  const row = async (id: string) =>
    (await poolA.query("SELECT * FROM channel_leases WHERE channel_id = $1", [id])).rows[0] as
      | Record<string, string>
      | undefined;

  before(async () => {
    const db = await createMigratedDatabase();
    poolA = db.pool;
    const { Pool } = (await import("pg")).default;
    poolB = new Pool({ connectionString: db.url, max: 8, allowExitOnIdle: true });
    a = pgChannelLeases(poolA);
    b = pgChannelLeases(poolB);
  });
  after(async () => {
    await poolA?.end();
    await poolB?.end();
  });

  it("acquires a free channel (generation 1); another instance sees it held with the owner's url", async () => {
    const got = await a.acquire("c1", A, 10_000);
    assert.equal(got.kind, "acquired");
    assert.equal(got.lease.generation, 1);
    assert.equal(got.lease.ownerId, A.id);
    assert.equal(got.lease.ownerUrl, A.url);
    assert.equal(got.ttlLeftMs, 10_000);
    assert.equal(got.lease.expiresAt - got.lease.renewedAt, 10_000);
    const seen = await b.acquire("c1", B, 10_000);
    assert.equal(seen.kind, "held");
    assert.equal(seen.lease.ownerId, A.id);
    assert.equal(seen.lease.ownerUrl, A.url);
    assert.equal(seen.lease.generation, 1, "a refused claim does not bump the generation");
    assert.ok(seen.ttlLeftMs > 9_000 && seen.ttlLeftMs <= 10_000, String(seen.ttlLeftMs));
    const r = await row("c1");
    assert.deepEqual(
      { owner: r?.owner_id, url: r?.owner_url, generation: r?.generation },
      { owner: A.id, url: A.url, generation: "1" },
    );
    assert.deepEqual((await b.current("c1"))?.lease.ownerId, A.id);
    assert.equal(await b.current("never-claimed"), undefined);
  });

  it("lets exactly one of many concurrent claims from two instances win", async () => {
    const claims = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2 === 0 ? a.acquire("race", A, 10_000) : b.acquire("race", B, 10_000),
      ),
    );
    const winners = new Set(
      claims.filter((c) => c.kind === "acquired").map((c) => c.lease.ownerId),
    );
    assert.equal(winners.size, 1, "one owner");
    const owner = [...winners][0];
    // The winner's own later claims re-acquire (each bumping the generation); the loser's are refused.
    for (const c of claims) {
      if (c.lease.ownerId === owner) continue;
      assert.fail(`a claim saw another owner: ${c.lease.ownerId}`);
    }
    // Every claim of the loser is refused; every claim of the winner re-acquires.
    assert.equal(claims.filter((c) => c.kind === "held").length, 8);
    const r = await row("race");
    assert.equal(r?.owner_id, owner);
  });

  it("renews only the owner's leases of the generation it holds", async () => {
    const got = await a.acquire("c2", A, 1_000);
    assert.equal(got.kind, "acquired");
    const was = Number((await row("c2"))?.expires_at);
    await sleep(50);
    assert.deepEqual(
      await a.renew(A, [{ channelId: "c2", generation: got.lease.generation }], 5_000),
      ["c2"],
    );
    const after = await row("c2");
    assert.ok(Number(after?.expires_at) >= was + 4_000, "expiry moved out by the new ttl");
    assert.equal(Number(after?.expires_at) - Number(after?.renewed_at), 5_000);
    assert.deepEqual(
      await b.renew(B, [{ channelId: "c2", generation: got.lease.generation }], 5_000),
      [],
    );
    assert.deepEqual(
      await a.renew(A, [{ channelId: "c2", generation: got.lease.generation + 1 }], 5_000),
      [],
      "another generation of the channel is not renewed",
    );
    assert.deepEqual(await a.renew(A, [], 5_000), []);
  });

  it("takes an expired lease over with generation + 1; the old owner's renewal then fails", async () => {
    const first = await a.acquire("c3", A, 300);
    assert.equal(first.kind, "acquired");
    assert.equal((await b.acquire("c3", B, 10_000)).kind, "held", "live: refused");
    await sleep(400);
    assert.equal(await b.current("c3"), undefined, "expired: nobody holds it");
    const taken = await b.acquire("c3", B, 10_000);
    assert.equal(taken.kind, "acquired");
    assert.equal(taken.lease.generation, first.lease.generation + 1);
    assert.equal(taken.lease.ownerUrl, B.url);
    assert.deepEqual(
      await a.renew(A, [{ channelId: "c3", generation: first.lease.generation }], 10_000),
      [],
    );
    assert.equal((await a.acquire("c3", A, 10_000)).kind, "held");
    assert.equal((await a.current("c3"))?.lease.ownerId, B.id);
  });

  it("release frees the channel at once (the row stays, so the generation keeps counting)", async () => {
    const got = await a.acquire("c4", A, 10_000);
    assert.equal(got.kind, "acquired");
    await b.release(B, "c4", got.lease.generation);
    await a.release(A, "c4", got.lease.generation + 5);
    assert.equal(
      (await b.acquire("c4", B, 10_000)).kind,
      "held",
      "only the owner's own generation releases",
    );
    await a.release(A, "c4", got.lease.generation);
    assert.equal(await b.current("c4"), undefined);
    assert.equal((await row("c4"))?.expires_at, "0");
    const next = await b.acquire("c4", B, 10_000);
    assert.equal(next.kind, "acquired");
    assert.equal(next.lease.generation, got.lease.generation + 1);
  });

  it("lists the live leases only, in channel order, with the time left by the database's clock", async () => {
    const live = await a.live();
    const ids = live.map((v) => v.lease.channelId);
    assert.deepEqual(ids, [...ids].sort());
    assert.ok(!ids.includes("c3") || live.find((v) => v.lease.channelId === "c3")!.ttlLeftMs > 0);
    for (const v of live) assert.ok(v.ttlLeftMs > 0 && v.ttlLeftMs <= 10_000, v.lease.channelId);
    assert.ok(ids.includes("c1") && ids.includes("c4"));
  });
});

describe("channel ownership of two instances on PostgreSQL", { skip: POSTGRES_MISSING }, () => {
  let pool: pg.Pool;
  before(async () => {
    pool = (await createMigratedDatabase()).pool;
  });
  after(async () => {
    await pool?.end();
  });

  it("claims, sees the other's lease, renews it past its ttl, loses it when cut off, and the other takes over with generation + 1", async () => {
    const store = pgChannelLeases(pool);
    const cutA = { on: false };
    const lostA: string[] = [];
    const lostB: string[] = [];
    const timing = { ttlMs: 1_500, renewEveryMs: 250 };
    const ownA = createChannelOwnership({
      store: reachable(store, cutA),
      self: () => A,
      onLost: (id) => lostA.push(id),
      ...timing,
    });
    const ownB = createChannelOwnership({
      store,
      self: () => B,
      onLost: (id) => lostB.push(id),
      ...timing,
    });
    try {
      const first = await ownA.resolve("news", true);
      assert.deepEqual(first, { kind: "self", generation: 1 });
      assert.ok(ownA.holds("news"));
      assert.equal(ownA.generation("news"), 1);
      const seen = await ownB.resolve("news", true);
      assert.equal(seen.kind, "peer");
      assert.equal(seen.kind === "peer" && seen.lease.ownerUrl, A.url);
      assert.equal(ownB.holds("news"), false);
      assert.equal((await ownB.resolve("news", false)).kind, "peer", "a look does not claim");
      // Renewals keep the lease well past one ttl.
      await sleep(3_000);
      assert.ok(ownA.holds("news"));
      assert.equal(lostA.length, 0);
      ownB.forget("news");
      assert.equal((await ownB.resolve("news", true)).kind, "peer");

      // Cut off: A cannot renew, stops packaging by its own deadline (never after the lease expired).
      cutA.on = true;
      const cutAt = Date.now();
      await until(
        "A gives the channel up",
        () => (lostA.includes("news") ? true : undefined),
        10_000,
      );
      // By its deadline (one renewal tick late at most, and a slow host's slack).
      assert.ok(Date.now() - cutAt <= timing.ttlMs + 1_000, `${Date.now() - cutAt} ms`);
      assert.equal(ownA.holds("news"), false);
      const taken = await until(
        "B takes the channel over",
        async () => {
          ownB.forget("news");
          const o = await ownB.resolve("news", true);
          return o.kind === "self" ? o : undefined;
        },
        10_000,
      );
      assert.equal(taken.generation, 2);
      assert.ok(ownB.holds("news"));

      // A back online: the channel is B's; A's claim is refused.
      cutA.on = false;
      const back = await ownA.resolve("news", true);
      assert.equal(back.kind === "peer" && back.lease.ownerId, B.id);

      // B's session stops: the lease is released, A claims it at once with generation 3.
      ownB.release("news");
      assert.equal(ownB.holds("news"), false);
      const again = await until(
        "A claims the released channel",
        async () => {
          ownA.forget("news");
          const o = await ownA.resolve("news", true);
          return o.kind === "self" ? o : undefined;
        },
        5_000,
      );
      assert.equal(again.generation, 3);
      assert.equal(lostB.length, 0, "a release is not a loss");
    } finally {
      await ownA.close();
      await ownB.close();
    }
    assert.equal((await store.current("news")) ?? "none", "none", "close released A's lease");
  });

  it("asks the database once for many concurrent requests of one channel", async () => {
    let acquires = 0;
    const store = pgChannelLeases(pool);
    const counted: ChannelLeaseStore = {
      ...store,
      acquire: (...a) => {
        acquires += 1;
        return store.acquire(...a);
      },
    };
    const own = createChannelOwnership({ store: counted, self: () => A, onLost: () => undefined });
    try {
      const all = await Promise.all(Array.from({ length: 20 }, () => own.resolve("solo", true)));
      assert.ok(all.every((o) => o.kind === "self" && o.generation === 1));
      assert.equal(acquires, 1);
    } finally {
      await own.close();
    }
  });
});

describe("channel leases of the embedded single instance", () => {
  it("always owns: every claim succeeds with the next generation; renew, release and listing follow", async () => {
    const s = singleInstanceLeases();
    const one = await s.acquire("x", A, 10_000);
    assert.deepEqual([one.kind, one.lease.generation, one.ttlLeftMs], ["acquired", 1, 10_000]);
    const two = await s.acquire("x", B, 10_000);
    assert.deepEqual([two.kind, two.lease.generation], ["acquired", 2]);
    assert.deepEqual(await s.renew(B, [{ channelId: "x", generation: 2 }], 10_000), ["x"]);
    assert.deepEqual(await s.renew(A, [{ channelId: "x", generation: 2 }], 10_000), []);
    assert.equal((await s.live()).length, 1);
    await s.release(B, "x", 2);
    assert.equal(await s.current("x"), undefined);
    assert.deepEqual(await s.live(), []);
    assert.equal((await s.acquire("x", A, 10_000)).lease.generation, 3);
  });
});
