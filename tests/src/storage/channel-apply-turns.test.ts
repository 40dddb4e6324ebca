import assert from "node:assert/strict";
import { it } from "node:test";
import { createChannelStore } from "@svc/admin-api/channel-store";
import { connectionLock } from "@svc/admin-api/storage/dialect/dialect";
import { GatewayError } from "@svc/core/errors";
import { storedChannel as channel } from "@svc/test-kits/channel";
import { describeEachStorage, withStorage } from "../harness/each-storage.js";

const isConflict = (err: unknown) => err instanceof GatewayError && err.code === "conflict";
const many = (n: number) =>
  Array.from({ length: n }, (_, i) => channel(`c${String(i).padStart(5, "0")}`, { sort_order: i }));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

// Issue 30 item 1: a large commit (an M3U apply) spans event-loop turns and stays one
// transaction; channel writes queue behind it, the mirror switches only after it.
describeEachStorage("channel commit across turns", (open, kind) => {
  it(
    "a large apply gives turns, other writes wait for it, the mirror switches after COMMIT",
    withStorage(open, async ({ repos, storage }) => {
      const store = await createChannelStore(repos.channels, []);
      await store.commit({ put: [channel("edit", { sort_order: -1 })] });
      const imported = [
        ...many(6_000),
        channel("edit", { title: "import", revision: 2, sort_order: -1 }),
      ];
      let done = false;
      const apply = store.commit({ put: imported }).finally(() => {
        done = true;
      });
      await nextTurn();
      assert.equal(done, false, "the apply is still running after one turn");
      assert.deepEqual(
        store.list().map((c) => c.id),
        ["edit"],
        "the mirror holds the old catalog until the commit ends",
      );
      // Written between the apply's turns: a stale edit of a channel it replaces (409 once it
      // committed), a new channel, and (SQLite) a statement of another writer of the process,
      // which takes the connection's lock (the apply's transaction is on its writer thread).
      const stale = store.commit({ put: [{ ...store.get("edit")!, title: "user", revision: 2 }] });
      const other = store.commit({ put: [channel("zz-other", { sort_order: 9_999_999 })] });
      const client = storage.sqlite?.$client;
      let marked: Promise<unknown> = Promise.resolve();
      if (client !== undefined) {
        marked = connectionLock(client)(async () =>
          client
            .prepare("INSERT INTO state_markers (name, set_at) VALUES (?, ?)")
            .run("between-turns", 1),
        );
        // The gateway's own connection reads on while the apply writes (WAL): the catalog as
        // it was, at once, with no transaction of its own open.
        const rows = client.prepare("SELECT count(*) AS n FROM channels").get();
        assert.deepEqual(rows, { n: 1 });
        assert.equal(client.inTransaction, false);
      }
      let turns = 0;
      while (!done) {
        await nextTurn();
        turns += 1;
      }
      await apply;
      await marked;
      assert.ok(turns >= 3, `the apply gave ${turns} turns`);
      await assert.rejects(stale, isConflict);
      await other;
      const stored = await repos.channels.loadAll();
      assert.equal(stored.length, 6_002);
      assert.equal(stored.find((c) => c.id === "edit")?.title, "import");
      assert.equal(store.list().length, 6_002);
      assert.deepEqual(
        store
          .list()
          .slice(0, 3)
          .map((c) => c.id),
        ["edit", "c00000", "c00001"],
      );
      assert.equal(store.list().at(-1)?.id, "zz-other");
      if (kind === "sqlite") {
        const marker = storage
          .sqlite!.$client.prepare("SELECT name FROM state_markers WHERE name = ?")
          .get("between-turns");
        assert.deepEqual(marker, { name: "between-turns" });
        assert.equal(storage.sqlite!.$client.inTransaction, false);
      }
    }),
  );

  it(
    "a conflict found in the database after earlier batches wrote rolls the whole apply back",
    withStorage(open, async ({ repos, other }) => {
      const a = await createChannelStore(repos.channels, []);
      await a.commit({ put: [channel("late")] });
      const b = await createChannelStore(other.channels, []);
      await a.commit({ put: [channel("late", { title: "from a", revision: 2 })] });
      // b's mirror still has "late" at revision 1: its pre-check passes, the database refuses
      // the last batch after 6,000 rows were written in this transaction.
      await assert.rejects(
        b.commit({ put: [...many(6_000), channel("late", { title: "from b", revision: 2 })] }),
        isConflict,
      );
      const stored = await repos.channels.loadAll();
      assert.deepEqual(
        stored.map((c) => [c.id, c.title, c.revision]),
        [["late", "from a", 2]],
      );
      assert.deepEqual(
        b.list().map((c) => [c.id, c.revision]),
        [["late", 2]],
      );
      await a.commit({ put: [channel("after")] });
      assert.equal((await repos.channels.loadAll()).length, 2);
    }),
  );
});
