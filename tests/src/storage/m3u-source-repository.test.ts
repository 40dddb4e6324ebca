import assert from "node:assert/strict";
import { it } from "node:test";
import { describeEachStorage, withStorage } from "../harness/each-storage.js";

/**
 * The M3U provider sources' repository (issue 35 item 6) on both databases, each case on a
 * fresh one opened twice: two instances sharing it, as in cluster mode. Attempts are epoch
 * milliseconds, beyond a 32-bit integer on purpose.
 */
const T = 1_767_312_245_000;
const row = (id: string, revision = 1) => ({
  id,
  name: id,
  url: `http://127.0.0.1:9/${id}.m3u`,
  enabled: true,
  refreshIntervalMin: 60,
  upstream: "",
  groupFilter: ["News", "Sport"],
  removeMissing: false,
  position: 1,
  revision,
  updatedAt: T,
});

describeEachStorage("m3u source repository", (open) => {
  it(
    "saves by revision: a create once, an update only from the revision read",
    withStorage(open, async ({ repos, other }) => {
      const a = repos.m3uSources;
      const b = other.m3uSources;
      assert.equal(await a.save(row("p"), undefined), true);
      assert.equal(await b.save(row("p"), undefined), false, "the id is taken");
      assert.deepEqual(await b.get("p"), row("p"));
      assert.equal(await b.save(row("p", 2), 1), true);
      assert.equal(await a.save(row("p", 2), 1), false, "the other instance wrote first");
      assert.equal(await a.remove("p", 1), false);
      assert.equal(await a.remove("p", 2), true);
      assert.deepEqual(await b.list(), []);
    }),
  );

  it(
    "claims a due source on one instance only; a manual sync claims unconditionally",
    withStorage(open, async ({ repos, other }) => {
      const a = repos.m3uSources;
      const b = other.m3uSources;
      const interval = 3_600_000;
      assert.equal(await a.claim("p", T, T - interval), true, "never attempted: due");
      assert.equal(await b.claim("p", T + 5, T + 5 - interval), false, "claimed: not due");
      assert.equal(await b.claim("p", T + interval, T), true);
      assert.equal(await a.claim("p", T + interval + 1, T + 1), false);
      assert.equal(await a.claim("p", T + interval + 2, null), true);
      assert.equal((await b.status("p"))?.lastAttempt, T + interval + 2);
    }),
  );

  it(
    "records a success with its counts and validators, a failure with its error only",
    withStorage(open, async ({ repos, other }) => {
      const a = repos.m3uSources;
      await a.claim("p", T, null);
      await a.finish("p", T, {
        ok: true,
        created: 3,
        updated: 1,
        disabled: 2,
        skipped: 4,
        validators: { etag: '"v1"', lastModified: null },
      });
      await a.finish("p", T + 1, { ok: false, error: "source answered HTTP 500" });
      assert.deepEqual(await other.m3uSources.status("p"), {
        sourceId: "p",
        lastAttempt: T,
        lastSuccess: T,
        error: "source answered HTTP 500",
        created: 3,
        updated: 1,
        disabled: 2,
        skipped: 4,
        etag: '"v1"',
        lastModified: null,
      });
      // A 304: counts and error replaced, validators kept.
      await a.finish("p", T + 2, { ok: true, created: 0, updated: 0, disabled: 0, skipped: 0 });
      const s = await other.m3uSources.status("p");
      assert.equal(s?.error, null);
      assert.equal(s?.etag, '"v1"');
      await a.clearValidators("p");
      assert.equal((await other.m3uSources.status("p"))?.etag, null);
      await a.forgetStatus("p");
      assert.equal(await other.m3uSources.status("p"), undefined);
    }),
  );
});
