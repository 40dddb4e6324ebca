import assert from "node:assert/strict";
import { it } from "node:test";
import { createChannelStore } from "@svc/admin-api/channel-store";
import { createEgressStore } from "@svc/admin-api/egress-store";
import { createSettingsStore } from "@svc/admin-api/settings-store";
import { parseConfig, readEnvironment } from "@svc/core/config";
import { createEgressRoutes, createHostAllowlist } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import { storedChannel as channel } from "@svc/test-kits/channel";
import { describeEachStorage, withStorage } from "../harness/each-storage.js";

const HASH = "$2b$04$abcdefghijklmnopqrstuu1234567890123456789012345678901";

const config = parseConfig(
  [
    "server:",
    '  data_dir: "/nonexistent"',
    '  public_base_url: "https://seed.example"',
    "auth:",
    "  users:",
    "    - username: admin",
    `      password_hash: "${HASH}"`,
    "      role: admin",
    "egress:",
    "  proxies:",
    "    - { id: vpn, name: VPN, url: 'http://127.0.0.1:3128' }",
    "  rules:",
    "    - { id: r1, kind: host_suffix, pattern: example, proxy: vpn }",
  ].join("\n"),
  readEnvironment({}),
);

const timeouts = { connectMs: 1_000, firstByteMs: 1_000, idleMs: 1_000 };
const routes = () =>
  createEgressRoutes({ allowlist: createHostAllowlist(["127.0.0.1"]), timeouts });

const isConflict = (err: unknown) => err instanceof GatewayError && err.code === "conflict";

// Two stores over one database stand for two instances: each keeps its own mirror, which
// `reload()` (the change feed's call) brings up to date; a write from a stale mirror is a
// 409 that reloads it, so the retry works.
describeEachStorage("mirror stores over repositories", (open) => {
  it(
    "channels: the other store sees a write after reload; a stale write is refused and reloads",
    withStorage(open, async ({ repos, other }) => {
      const a = await createChannelStore(repos.channels, []);
      const b = await createChannelStore(other.channels, []);
      await a.commit({ put: [channel("x"), channel("y", { sort_order: -1 })] });
      assert.equal(b.get("x"), undefined);
      await b.reload();
      assert.deepEqual(
        b.list().map((c) => c.id),
        ["y", "x"],
      );
      assert.deepEqual(b.get("x"), channel("x"));
      await a.commit({ put: [channel("x", { title: "from a", revision: 2 })] });
      await assert.rejects(
        b.commit({ put: [channel("x", { title: "from b", revision: 2 })] }),
        isConflict,
      );
      assert.equal(b.get("x")?.title, "from a");
      await b.commit({ put: [{ ...b.get("x")!, title: "from b", revision: 3 }] });
      await assert.rejects(a.commit({ remove: ["x"] }), isConflict);
      assert.equal(a.get("x")?.revision, 3);
      await a.commit({ remove: ["x"] });
      await b.reload();
      assert.equal(b.get("x"), undefined);
      assert.deepEqual(
        (await repos.channels.loadAll()).map((c) => c.id),
        ["y"],
      );
    }),
  );

  it(
    "settings: created from the config once, saved from the current revision, reloaded",
    withStorage(open, async ({ repos, other }) => {
      const a = await createSettingsStore(repos.settings, config);
      const b = await createSettingsStore(other.settings, {
        ...config,
        server: { ...config.server, public_base_url: "https://ignored.example" },
      });
      assert.equal(b.current().publicBaseUrl, "https://seed.example");
      await a.save({ ...a.current(), accessLogRetentionDays: 7, revision: 2 });
      await assert.rejects(b.save({ ...b.current(), revision: 2 }), isConflict);
      assert.equal(b.current().accessLogRetentionDays, 7);
      await b.save({ ...b.current(), tlsEnabled: true, revision: 3 });
      await a.reload();
      assert.deepEqual(a.current(), b.current());
    }),
  );

  it(
    "egress: seeded from the config, committed as the next revision, reloaded into the routes",
    withStorage(open, async ({ repos, other }) => {
      const routesA = routes();
      const routesB = routes();
      try {
        const a = await createEgressStore(repos.egress, config, routesA);
        const b = await createEgressStore(other.egress, config, routesB);
        assert.equal(a.current().source, "config");
        assert.deepEqual(
          routesB.current().document.proxies.map((p) => p.url),
          ["http://127.0.0.1:3128"],
        );
        const next = await a.commit({ ...a.current().document, proxies: [], rules: [] });
        assert.equal(next.revision, 2);
        assert.equal(next.source, "api");
        await assert.rejects(b.commit(b.current().document), isConflict);
        assert.equal(b.current().revision, 2);
        assert.deepEqual(routesB.current().document.proxies, []);
        assert.equal((await b.commit(b.current().document)).revision, 3);
        await a.reload();
        assert.deepEqual(a.current(), b.current());
      } finally {
        await routesA.close();
        await routesB.close();
      }
    }),
  );
});

describeEachStorage("mirror stores on the change feed", (open, kind) => {
  it(
    "a write on one instance reaches the other's mirrors through the feed",
    { skip: kind === "sqlite" ? "SQLite has one writer: its feed never fires" : false },
    withStorage(open, async ({ repos, other, second }) => {
      const routesA = routes();
      const routesB = routes();
      try {
        const channelsA = await createChannelStore(repos.channels, []);
        const settingsA = await createSettingsStore(repos.settings, config);
        const egressA = await createEgressStore(repos.egress, config, routesA);
        // Instance B registers its reloads as openAdminState does.
        const channelsB = await createChannelStore(other.channels, []);
        second.feed.watch("channels", channelsB.reload);
        const settingsB = await createSettingsStore(other.settings, config);
        second.feed.watch("settings", settingsB.reload);
        const egressB = await createEgressStore(other.egress, config, routesB);
        second.feed.watch("egress", egressB.reload);
        await channelsA.commit({ put: [channel("x", { title: "made on a" })] });
        await settingsA.save({ ...settingsA.current(), publicBaseUrl: "", revision: 2 });
        await egressA.commit({ ...egressA.current().document, rules: [] });
        // The contract's bound is 1 s (pushed by NOTIFY, 1 s polls as the fallback); the
        // deadline leaves room for a busy machine.
        await until(
          () =>
            channelsB.get("x")?.title === "made on a" &&
            settingsB.current().revision === 2 &&
            routesB.current().document.rules.length === 0,
          10_000,
        );
        assert.deepEqual(channelsB.get("x"), channelsA.get("x"));
        assert.deepEqual(settingsB.current(), settingsA.current());
        assert.deepEqual(egressB.current(), egressA.current());
      } finally {
        await routesA.close();
        await routesB.close();
      }
    }),
  );
  it(
    "catchUp() brings the other instance's mirrors up to date before it resolves",
    { skip: kind === "sqlite" ? "SQLite has one writer: catchUp has nothing to do" : false },
    withStorage(open, async ({ repos, other, second }) => {
      const channelsA = await createChannelStore(repos.channels, []);
      const channelsB = await createChannelStore(other.channels, []);
      second.feed.watch("channels", channelsB.reload);
      await channelsA.commit({ put: [channel("x", { title: "made on a" })] });
      // No waiting for a poll: an admin write on B calls catchUp() first.
      await second.feed.catchUp();
      assert.equal(channelsB.get("x")?.title, "made on a");
      await channelsA.commit({ put: [channel("x", { title: "again", revision: 2 })] });
      await second.feed.catchUp();
      assert.equal(channelsB.get("x")?.revision, 2);
    }),
  );
});

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
