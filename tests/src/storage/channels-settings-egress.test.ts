import assert from "node:assert/strict";
import { it } from "node:test";
import type { StoredEgressDocument } from "@svc/admin-api/egress-document";
import type { EgressRow, SettingsRow } from "@svc/admin-api/storage/single-row-repository";
import type { StoredChannel } from "@svc/admin-api/stored-channel";
import { GatewayError } from "@svc/core/errors";
import { storedChannel } from "@svc/test-kits/channel";
import { describeEachStorage, type OpenedStorage, withStorage } from "../harness/each-storage.js";

/** An epoch-ms time beyond 32 bits (PostgreSQL `bigint`, read back as a number). */
const T = 1_767_312_245_123;

/** Round-trip values: non-ASCII text, quoting in headers, a list, an epoch-ms past 32 bits. */
function channel(id: string, over: Partial<StoredChannel> = {}): StoredChannel {
  return storedChannel(id, {
    title: `Channel ${id} — ünïcode`,
    group: "News",
    epg_id: `${id}.example`,
    source_url: `http://127.0.0.1:9/${id}/index.m3u8`,
    headers: { Referer: "http://127.0.0.1/", "X-Quote": 'a "b" \\ c' },
    preferred_audio_languages: ["de", "en"],
    guide_number: "05.1",
    fallback_sources: [
      {
        source_url: "",
        upstream: "origin",
        path: `/${id}/backup.m3u8`,
        headers: { Cookie: "s=1", "X-Quote": '"q"' },
        user_agent: "Backup/1",
      },
    ],
    updated_at: T,
    ...over,
  });
}

const byId = (list: readonly StoredChannel[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));

const isConflict = (err: unknown) => err instanceof GatewayError && err.code === "conflict";

const SETTINGS: SettingsRow = {
  id: 1,
  publicBaseUrl: "https://tv.example",
  accessLogRetentionDays: 30,
  tlsEnabled: false,
  revision: 1,
  updatedAt: T,
};

const DOCUMENT: StoredEgressDocument = {
  default: "vpn",
  playlist_policy: "auto",
  docker_proxy_host: "",
  proxies: [
    {
      id: "vpn",
      name: "VPN «1»",
      url: "socks5h://user:p%40ss@127.0.0.1:1080",
      disabled: false,
      revision: 3,
    },
    { id: "off", name: "", url: "http://127.0.0.1:3128", disabled: true, revision: 1 },
  ],
  rules: [{ id: "r1", kind: "host_suffix", pattern: "example", proxy: "direct" }],
};

const EGRESS: EgressRow = {
  id: 1,
  document: DOCUMENT,
  source: "config",
  revision: 1,
  updatedAt: T,
};

/** The cases every storage kind passes. */
describeEachStorage("channel, settings and egress repositories", (open, kind) => {
  const using = (name: string, body: (o: OpenedStorage) => Promise<void>) =>
    it(name, withStorage(open, body));

  using("stores channels and loads them back field for field", async ({ repos }) => {
    assert.deepEqual(await repos.channels.loadAll(), []);
    const a = channel("a", {
      prefer_height: 720,
      max_viewers: 10_000,
      keys: { "00112233445566778899aabbccddeeff": "ffeeddccbbaa99887766554433221100" },
      autostart: true,
      on_demand: false,
      disabled: true,
      engine: "ffmpeg",
      ingress: "dash",
      egress_mode: "profile",
      egress_profile_id: "vpn",
      sort_order: -3,
    });
    const b = channel("b", {
      headers: {},
      preferred_audio_languages: [],
      upstream: "up",
      path: "/x",
    });
    await repos.channels.commit({ put: [b, a] });
    assert.deepEqual(byId(await repos.channels.loadAll()), [a, b]);
  });

  using(
    "replaces from the previous revision and refuses a stale or taken one",
    async ({ repos }) => {
      await repos.channels.commit({ put: [channel("a"), channel("b")] });
      const a2 = channel("a", {
        title: "A2",
        revision: 2,
        updated_at: T + 1,
        headers: { New: "1" },
      });
      await repos.channels.commit({ put: [a2] });
      // Revision 2 again: the writer read revision 1, which is gone. With it a new channel,
      // which must not be stored either (one transaction).
      await assert.rejects(
        repos.channels.commit({
          put: [channel("c"), channel("a", { title: "lost", revision: 2 })],
        }),
        isConflict,
      );
      // A create of a taken id.
      await assert.rejects(
        repos.channels.commit({ put: [channel("b", { title: "again" })] }),
        isConflict,
      );
      assert.deepEqual(byId(await repos.channels.loadAll()), [a2, channel("b")]);
    },
  );

  using("deletes only the revision the writer saw", async ({ repos }) => {
    await repos.channels.commit({ put: [channel("a"), channel("b"), channel("c")] });
    await assert.rejects(
      repos.channels.commit({
        remove: [
          { id: "a", revision: 1 },
          { id: "b", revision: 7 },
        ],
      }),
      isConflict,
    );
    assert.equal((await repos.channels.loadAll()).length, 3);
    await repos.channels.commit({
      remove: [
        { id: "a", revision: 1 },
        { id: "b", revision: 1 },
      ],
    });
    assert.deepEqual(await repos.channels.loadAll(), [channel("c")]);
  });

  using("writes an M3U-sized change in batches, all or nothing", async ({ repos }) => {
    const many = Array.from({ length: 450 }, (_, i) => channel(`ch-${i}`, { sort_order: i }));
    await repos.channels.commit({ put: many });
    assert.equal((await repos.channels.loadAll()).length, 450);
    // The stale one sits in the last batch: the first two batches must roll back too.
    const next = many.map((c, i) => ({ ...c, title: "next", revision: i === 440 ? 5 : 2 }));
    await assert.rejects(repos.channels.commit({ put: next }), isConflict);
    const stored = await repos.channels.loadAll();
    assert.equal(stored.filter((c) => c.title === "next").length, 0);
    await repos.channels.commit({ put: next.map((c) => ({ ...c, revision: 2 })) });
    const after = await repos.channels.loadAll();
    assert.ok(after.every((c) => c.title === "next" && c.revision === 2));
  });

  using("imports the config channels once, and never after the marker", async ({ repos }) => {
    const seed = [channel("x"), channel("y", { sort_order: 1 })];
    assert.equal(await repos.channels.seedOnce("config_channels_imported", seed), 2);
    assert.equal(await repos.channels.seedOnce("config_channels_imported", seed), 0);
    await repos.channels.commit({
      remove: [
        { id: "x", revision: 1 },
        { id: "y", revision: 1 },
      ],
    });
    assert.equal(await repos.channels.seedOnce("config_channels_imported", seed), 0);
    assert.deepEqual(await repos.channels.loadAll(), []);
    // A catalog that has channels before the first import keeps them alone.
    await repos.channels.commit({ put: [channel("own")] });
    assert.equal(await repos.channels.seedOnce("another_marker", seed), 0);
    assert.deepEqual(await repos.channels.loadAll(), [channel("own")]);
  });

  using("settings: created once, saved from the previous revision only", async ({ repos }) => {
    assert.equal(await repos.settings.load(), undefined);
    assert.deepEqual(await repos.settings.loadOrCreate(SETTINGS), SETTINGS);
    assert.deepEqual(
      await repos.settings.loadOrCreate({ ...SETTINGS, publicBaseUrl: "https://other.example" }),
      SETTINGS,
    );
    const next = {
      ...SETTINGS,
      publicBaseUrl: "",
      tlsEnabled: true,
      revision: 2,
      updatedAt: T + 5,
    };
    await repos.settings.save(next);
    assert.deepEqual(await repos.settings.load(), next);
    await assert.rejects(repos.settings.save({ ...next, accessLogRetentionDays: 1 }), isConflict);
    await assert.rejects(repos.settings.save({ ...next, revision: 9 }), isConflict);
    assert.deepEqual(await repos.settings.load(), next);
  });

  using(
    "egress: the document created once, saved from the previous revision only",
    async ({ repos }) => {
      assert.equal(await repos.egress.load(), undefined);
      assert.deepEqual(await repos.egress.loadOrCreate(EGRESS), EGRESS);
      assert.deepEqual(await repos.egress.loadOrCreate({ ...EGRESS, source: "api" }), EGRESS);
      const next: EgressRow = {
        id: 1,
        document: { ...DOCUMENT, proxies: [], rules: [], default: "direct" },
        source: "api",
        revision: 2,
        updatedAt: T + 9,
      };
      await repos.egress.save(next);
      assert.deepEqual(await repos.egress.load(), next);
      await assert.rejects(repos.egress.save(next), isConflict);
      assert.deepEqual(await repos.egress.load(), next);
    },
  );

  if (kind === "postgres") {
    using("bumps state_versions in each write transaction, not on a refused one", async (o) => {
      const version = o.version!;
      const { repos } = o;
      assert.equal(await version("channels"), 0);
      await repos.channels.commit({ put: [channel("a")] });
      assert.equal(await version("channels"), 1);
      await assert.rejects(repos.channels.commit({ put: [channel("a")] }), isConflict);
      assert.equal(await version("channels"), 1);
      await repos.channels.commit({ remove: [{ id: "a", revision: 1 }] });
      assert.equal(await version("channels"), 2);
      await repos.settings.loadOrCreate(SETTINGS);
      await repos.settings.save({ ...SETTINGS, revision: 2 });
      assert.equal(await version("settings"), 2);
      await repos.egress.loadOrCreate(EGRESS);
      await repos.egress.save({ ...EGRESS, revision: 2 });
      await assert.rejects(repos.egress.save({ ...EGRESS, revision: 2 }), isConflict);
      assert.equal(await version("egress"), 2);
      assert.equal(await repos.channels.seedOnce("m", [channel("s")]), 1);
      assert.equal(await version("channels"), 3);
    });

    using("refuses to bring back a channel another instance deleted", async ({ repos, other }) => {
      await repos.channels.commit({ put: [channel("a")] });
      await other.channels.commit({ remove: [{ id: "a", revision: 1 }] });
      await assert.rejects(
        repos.channels.commit({ put: [channel("a", { revision: 2, title: "stale" })] }),
        isConflict,
      );
      assert.deepEqual(await repos.channels.loadAll(), []);
    });

    using("two instances starting together import the config channels once", async (o) => {
      const seed = Array.from({ length: 300 }, (_, i) => channel(`c${i}`));
      const counts = await Promise.all([
        o.repos.channels.seedOnce("config_channels_imported", seed),
        o.other.channels.seedOnce("config_channels_imported", seed),
      ]);
      assert.deepEqual(
        [...counts].sort((a, b) => a - b),
        [0, 300],
      );
      assert.equal((await o.repos.channels.loadAll()).length, 300);
    });
  }
});
