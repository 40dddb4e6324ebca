import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sqliteChannelLeases } from "@svc/admin-api/storage/channel-leases/sqlite";
import { dialectOf } from "@svc/admin-api/storage/dialect/dialect";
import type { MirroredResource } from "@svc/admin-api/storage/kernel/change-feed";
import { createSerialLock } from "@svc/admin-api/storage/kernel/serial-lock";
import { createSqliteRateLimiter } from "@svc/admin-api/storage/login-windows/sqlite";
import { createRepositories } from "@svc/admin-api/storage/repositories";
import { type SqliteStorage, workerSqliteStorage } from "@svc/admin-api/storage/storage";
import { createSqliteViewerSeatStore } from "@svc/admin-api/storage/viewer-seats/sqlite";
import { createRateLimiter, type RateLimiter } from "@svc/core/auth";
import { createClusterKeyConnections } from "@svc/playback/play";
import { storedChannel } from "@svc/test-kits/channel";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The storage half of `server.workers` (docs/cluster.md "Workers"): two storages opened on
 * one SQLite file the way two worker processes open it (two connections), the push wired
 * from one to the other as the primary relays it.
 */
describe("workers: one SQLite file shared by two storages", () => {
  let dir: string;
  let a: SqliteStorage;
  let b: SqliteStorage;
  const toldB: MirroredResource[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-workers-storage-"));
    let peer: SqliteStorage | undefined;
    // The workers' write lock as the primary grants it: one holder at a time, in order.
    const workersLock = createSerialLock();
    a = await workerSqliteStorage(dir, {
      written: (resource) => {
        toldB.push(resource);
        peer?.notified?.();
      },
      usage: async () => {},
      exclusiveWrite: workersLock,
    });
    b = await workerSqliteStorage(dir, {
      written: () => a.notified?.(),
      usage: async () => {},
      exclusiveWrite: workersLock,
    });
    peer = b;
  });
  after(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a write on one is reloaded by the other: pushed, and by catchUp", async () => {
    let reloads = 0;
    let pushed: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      pushed = resolve;
    });
    b.feed.watch("settings", async () => {
      reloads += 1;
      pushed();
    });
    await dialectOf(a).write("settings", async () => undefined);
    assert.deepEqual(toldB, ["settings"]);
    await reached; // the push alone reloads B (its poll is a second away)
    assert.equal(reloads, 1);
    await dialectOf(a).write("settings", async () => undefined);
    await b.feed.catchUp();
    assert.equal(reloads, 2, "catchUp finished the reload of the second write");
    await b.feed.catchUp();
    assert.equal(reloads, 2, "nothing changed: no reload");
  });

  it("a write whose `changed` says no bumps nothing and tells nobody", async () => {
    const before = toldB.length;
    await dialectOf(a).write(
      "channels",
      async () => 0,
      (n) => n > 0,
    );
    assert.equal(toldB.length, before);
  });

  it("a write of one waits for the other's long channel commit as a promise: the loop turns on", async () => {
    const put = Array.from({ length: 6_000 }, (_, i) =>
      storedChannel(`w${String(i).padStart(5, "0")}`, { sort_order: i }),
    );
    const commit = createRepositories(a).channels.commit({ put });
    await nextTurn();
    // b's settings write meets the workers' lock, held by a's commit (its writer thread holds
    // SQLite's): it waits without stopping this event loop, and goes in after the COMMIT.
    let channelsSeen = -1;
    const write = dialectOf(b).write("settings", async () => {
      const row = b.sqlite.$client.prepare("SELECT count(*) AS n FROM channels").get();
      channelsSeen = (row as { n: number }).n;
    });
    let settled = false;
    write.finally(() => {
      settled = true;
    });
    let turns = 0;
    while (!settled) {
      await nextTurn();
      turns += 1;
    }
    await Promise.all([commit, write]);
    assert.equal(channelsSeen, 6_000, "the write ran after the commit, not inside it");
    assert.ok(turns >= 3, `the loop turned ${turns} times while the write waited`);
    assert.equal((await createRepositories(b).channels.loadAll()).length, 6_000);
  });

  it("packaging leases: one owner, renewal of own generation, release and takeover", async () => {
    const la = sqliteChannelLeases(a.sqlite.$client);
    const lb = sqliteChannelLeases(b.sqlite.$client);
    const wa = { id: "worker-a", url: "http://127.0.0.1:1" };
    const wb = { id: "worker-b", url: "http://127.0.0.1:2" };
    const got = await la.acquire("news", wa, 10_000);
    assert.equal(got.kind, "acquired");
    assert.equal(got.lease.generation, 1);
    const lost = await lb.acquire("news", wb, 10_000);
    assert.equal(lost.kind, "held");
    assert.equal(lost.lease.ownerId, "worker-a");
    assert.deepEqual(await lb.renew(wb, [{ channelId: "news", generation: 1 }], 10_000), []);
    assert.deepEqual(await la.renew(wa, [{ channelId: "news", generation: 1 }], 10_000), ["news"]);
    assert.equal((await lb.live()).length, 1);
    await la.release(wa, "news", 1);
    assert.equal(await lb.current("news"), undefined);
    const taken = await lb.acquire("news", wb, 10_000);
    assert.equal(taken.kind, "acquired");
    assert.equal(taken.lease.generation, 2);
    // An expired lease (ttl 0: expired as soon as written) is taken over with generation + 1.
    await la.acquire("sport", wa, 0);
    const over = await lb.acquire("sport", wb, 10_000);
    assert.equal(over.kind, "acquired");
    assert.equal(over.lease.generation, 2);
    assert.deepEqual(await la.renew(wa, [{ channelId: "sport", generation: 1 }], 10_000), []);
  });

  it("viewer seats: max_viewers counted across both", async () => {
    const sa = createSqliteViewerSeatStore(a.sqlite.$client, () => "a");
    const sb = createSqliteViewerSeatStore(b.sqlite.$client, () => "b");
    const now = Date.now();
    const seat = (leaseId: string) => ({ channelId: "c1", leaseId, expiresAt: now + 30_000 });
    assert.equal(await sa.claim(seat("v1"), 1, now), true);
    assert.equal(await sb.claim(seat("v2"), 1, now), false, "the one seat is taken on A");
    assert.equal(await sb.claim(seat("v1"), 1, now), true, "the holder renews anywhere");
    assert.deepEqual(await sb.renew([seat("v1"), seat("v3")], now), [seat("v3")]);
    await sa.release?.(seat("v1"));
    assert.equal(await sb.claim(seat("v2"), 1, now), true);
    assert.equal(await sa.sweep(now + 60_000), 1);
  });

  /** The login limiter of each storage, as two workers have it, with `perMinute` attempts. */
  const limiters = (perMinute: number) =>
    [a, b].map((s) =>
      createSqliteRateLimiter(s.sqlite.$client, { perMinute, local: createRateLimiter(perMinute) }),
    ) as [RateLimiter, RateLimiter];

  it("login limiter: the quota is shared, not doubled", async () => {
    const [la, lb] = limiters(3);
    const now = Date.now();
    const taken = [
      await la.take("login:127.0.0.1", now),
      await lb.take("login:127.0.0.1", now),
      await la.take("login:127.0.0.1", now),
      await lb.take("login:127.0.0.1", now),
    ];
    assert.deepEqual(taken, [true, true, true, false]);
    assert.ok(lb.retryAfterSec("login:127.0.0.1", now) >= 59);
  });

  it("a playback key's live seats (active_cons) are counted at once across both", async () => {
    const sa = createSqliteViewerSeatStore(a.sqlite.$client, () => "a");
    const sb = createSqliteViewerSeatStore(b.sqlite.$client, () => "b");
    const ka = createClusterKeyConnections({ store: sa });
    const kb = createClusterKeyConnections({ store: sb });
    try {
      const now = Date.now();
      assert.equal(await ka.hold("pk_w", "s1", 3, true, now), "held");
      assert.equal(await kb.hold("pk_w", "s2", 3, true, now), "held");
      assert.equal(ka.active("pk_w", now), 2, "A counts B's stream too");
      assert.equal(kb.active("pk_w", now), 2, "B counts A's stream too");
      ka.release("pk_w", "s1");
      // The release's delete runs under the workers' write lock: a turn later it is gone.
      for (let i = 0; i < 50 && kb.active("pk_w", now) !== 1; i++) await nextTurn();
      assert.equal(kb.active("pk_w", now), 1);
    } finally {
      await ka.close();
      await kb.close();
    }
  });

  it("login limiter: a client refused on one is refused on the other before it counts", async () => {
    const [la, lb] = limiters(2);
    const now = Date.now();
    const key = "xtream\u0000127.0.0.9";
    assert.equal(lb.refusedForSec?.(key, now), 0);
    await la.take(key, now);
    await la.take(key, now);
    assert.equal(lb.refusedForSec?.(key, now), 0, "at the quota, not over it");
    assert.equal(await la.take(key, now), false);
    const left = lb.refusedForSec?.(key, now) ?? 0;
    assert.ok(left >= 59 && left <= 60, `refused for ${left} s on B`);
    assert.equal(lb.refusedForSec?.(key, now + 61_000), 0, "the window ended");
  });
});
