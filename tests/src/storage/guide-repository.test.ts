import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type {
  GuideRepository,
  GuideSourceRow,
  ProgrammeInput,
  SourceStatusRow,
} from "@svc/admin-api/storage/guide/repository";
import { openPostgresStorage } from "@svc/admin-api/storage/postgres/open";
import { createRepositories } from "@svc/admin-api/storage/repositories";
import { type Storage, sqliteStorage } from "@svc/admin-api/storage/storage";
import { tempDir } from "../harness/gateway-process.js";
import { createDatabase, POSTGRES_MISSING } from "../harness/postgres-server.js";

/**
 * The guide repository (issue 15 item 1) against both databases, each case on
 * a fresh one opened twice: two instances sharing it, as in cluster mode.
 * Generations are epoch milliseconds, beyond a 32-bit integer on purpose.
 */

interface Instances {
  readonly a: GuideRepository;
  readonly b: GuideRepository;
  /** PostgreSQL only: the change counter of the "guide" mirror. */
  readonly guideVersion?: () => Promise<number>;
}

const opened: Storage[] = [];
after(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

function keep(s: Storage): GuideRepository {
  opened.push(s);
  return createRepositories(s).guide;
}

const BACKENDS: readonly {
  name: string;
  skip: string | false;
  open(): Promise<Instances>;
}[] = [
  {
    name: "SQLite",
    skip: false,
    async open() {
      const dir = tempDir("svc-guide-repo-");
      return { a: keep(sqliteStorage(dir)), b: keep(sqliteStorage(dir)) };
    },
  },
  {
    name: "PostgreSQL",
    skip: POSTGRES_MISSING,
    async open() {
      const url = await createDatabase();
      assert.ok(url !== undefined);
      const first = await openPostgresStorage(url);
      const a = keep(first);
      const b = keep(await openPostgresStorage(url));
      return {
        a,
        b,
        guideVersion: async () => {
          const r = await first.pg!.$client.query(
            "SELECT version FROM state_versions WHERE resource = 'guide'",
          );
          return r.rows[0] === undefined ? 0 : Number(r.rows[0].version);
        },
      };
    },
  },
];

const G1 = 1_767_225_600_000;
const G2 = G1 + 3_600_000;
const G3 = G2 + 3_600_000;

const source = (id: string, extra: Partial<GuideSourceRow> = {}): GuideSourceRow => ({
  id,
  preset: false,
  name: id,
  url: `http://127.0.0.1:9/${id}.xml`,
  timezone: "UTC",
  proxy: "direct",
  enabled: true,
  hidden: false,
  position: 1,
  revision: 1,
  updatedAt: G1,
  ...extra,
});

const prog = (channel: string, start: number, title = `${channel}@${start}`): ProgrammeInput => ({
  channel,
  start,
  stop: start + 1800,
  body: `<title>${title}</title>`,
});

const status = (sourceId: string, generation: number, counts: [number, number]) => ({
  sourceId,
  lastAttempt: generation,
  lastSuccess: generation + 1000,
  stale: false,
  error: null,
  channelCount: counts[0],
  programmeCount: counts[1],
  generation,
  etag: '"v1"',
  lastModified: null,
  metadata: { "generator-info-name": "test", gzip: false },
});

/** Writes one generation in pieces, as a refresh does, and switches to it. */
async function refreshTo(
  repo: GuideRepository,
  sourceId: string,
  generation: number,
  channels: readonly string[],
  pieces: readonly (readonly ProgrammeInput[])[],
): Promise<SourceStatusRow | undefined> {
  const writer = await repo.openProgrammeWriter(sourceId, generation);
  try {
    for (const piece of pieces) await writer.write((insert) => piece.forEach(insert));
  } finally {
    await writer.close();
  }
  return repo.switchGeneration(
    channels.map((id) => ({
      id,
      displayNames: [`${id} HD`, id],
      icon: `http://127.0.0.1:9/${id}.png`,
    })),
    status(sourceId, generation, [channels.length, writer.stored]),
  );
}

/** Starts of the stored programmes of each channel, in the order they are read. */
async function startsOf(
  repo: GuideRepository,
  sourceId: string,
  generation: number,
  ids: readonly string[],
): Promise<Record<string, number[]>> {
  const rows = await repo.programmes(sourceId, generation, ids);
  return Object.fromEntries(ids.map((id) => [id, (rows.get(id) ?? []).map((p) => p.start)]));
}

for (const backend of BACKENDS) {
  describe(`guide repository on ${backend.name}`, { skip: backend.skip }, () => {
    it("stores sources by revision: a stale write is refused, presets keep only changed fields and hide", async () => {
      const { a, b } = await backend.open();
      assert.equal(await a.saveSource(source("alpha"), undefined), true);
      assert.equal(await b.saveSource(source("alpha", { name: "other" }), undefined), false);
      assert.equal(await b.saveSource(source("alpha", { name: "B", revision: 2 }), 1), true);
      assert.equal(
        await a.saveSource(source("alpha", { name: "A", revision: 2 }), 1),
        false,
        "instance a still holds revision 1: refused, not a lost update",
      );
      const preset = source("epgpw-gb", {
        preset: true,
        name: null,
        url: null,
        timezone: null,
        proxy: null,
        enabled: true,
        position: 0,
        revision: 2,
      });
      assert.equal(await a.saveSource(preset, undefined), true);
      assert.equal(await b.saveSource({ ...preset, hidden: true, revision: 3 }, 2), true);
      const rows = new Map((await a.sources()).map((r) => [r.id, r]));
      assert.deepEqual(rows.get("alpha"), source("alpha", { name: "B", revision: 2 }));
      assert.deepEqual(rows.get("epgpw-gb"), { ...preset, hidden: true, revision: 3 });
      assert.equal(await a.deleteSource("alpha", 1), false);
      assert.equal(await a.deleteSource("alpha", 2), true);
      assert.deepEqual(
        (await b.sources()).map((r) => r.id),
        ["epgpw-gb"],
      );
    });

    it("claims a source once per interval whichever instance asks", async () => {
      const { a, b } = await backend.open();
      const interval = 3_600_000;
      const t = G1;
      const claimed = await a.claim("alpha", t, t - interval);
      assert.equal(claimed?.lastAttempt, t);
      assert.equal(claimed?.generation, null);
      assert.equal(await b.claim("alpha", t + 5, t + 5 - interval), undefined, "not due yet");
      assert.equal((await b.claim("alpha", t + interval, t))?.lastAttempt, t + interval);
      assert.equal(await a.claim("alpha", t + interval + 1, t + 1), undefined);
      assert.equal(
        (await a.claim("alpha", t + interval + 2, null))?.lastAttempt,
        t + interval + 2,
        "a manual refresh claims unconditionally",
      );
    });

    it("writes a generation in pieces, switches to it and reads epg rows in order", async () => {
      const { a, b } = await backend.open();
      const switched = await refreshTo(
        a,
        "alpha",
        G1,
        ["bbc1.uk", "arte.fr"],
        [
          [prog("bbc1.uk", 3000), prog("arte.fr", 2000), prog("bbc1.uk", 1000)],
          // The same channel and start again (a clump, an overlap, a repeat): stored
          // and counted; epg.xml resolves them as tv_sort does (programme-order.ts).
          [prog("bbc1.uk", 1000, "duplicate"), prog("bbc1.uk", 2000)],
        ],
      );
      assert.equal(switched?.generation, G1);
      assert.equal(switched?.programmeCount, 5);
      assert.deepEqual(
        (await b.statuses()).map((s) => [s.sourceId, s.generation, s.channelCount, s.metadata]),
        [["alpha", G1, 2, { "generator-info-name": "test", gzip: false }]],
      );
      assert.deepEqual(await startsOf(b, "alpha", G1, ["bbc1.uk", "arte.fr", "none"]), {
        "bbc1.uk": [1000, 1000, 2000, 3000],
        "arte.fr": [2000],
        none: [],
      });
      const rows = await b.programmes("alpha", G1, ["bbc1.uk"]);
      // Both programmes of one start are kept (their order: docs/guide.md).
      const sameStart = rows.get("bbc1.uk")?.slice(0, 2);
      assert.deepEqual(
        sameStart?.sort((x, y) => (x.body < y.body ? -1 : 1)),
        [
          { start: 1000, stop: 2800, body: "<title>bbc1.uk@1000</title>" },
          { start: 1000, stop: 2800, body: "<title>duplicate</title>" },
        ],
      );
    });

    it("keeps the last good generation when a refresh fails halfway", async () => {
      const { a, b } = await backend.open();
      await refreshTo(a, "alpha", G1, ["bbc1.uk"], [[prog("bbc1.uk", 1000)]]);
      const writer = await b.openProgrammeWriter("alpha", G2);
      await writer.write((insert) => insert(prog("bbc1.uk", 5000)));
      await assert.rejects(
        writer.write((insert) => {
          insert(prog("bbc1.uk", 6000));
          throw new Error("XML error at line 9");
        }),
        /XML error/,
      );
      await writer.close();
      const failed = await b.recordFailure("alpha", G2, "XML error at line 9");
      assert.equal(failed.stale, true);
      assert.equal(failed.error, "XML error at line 9");
      assert.equal(failed.lastAttempt, G2);
      assert.equal(failed.generation, G1, "still the last good generation");
      assert.equal(failed.programmeCount, 1);
      await b.dropGeneration("alpha", G2);
      assert.deepEqual(await startsOf(a, "alpha", G2, ["bbc1.uk"]), { "bbc1.uk": [] });
      assert.deepEqual(await startsOf(a, "alpha", G1, ["bbc1.uk"]), { "bbc1.uk": [1000] });
      const never = await a.recordFailure("beta", G2, "HTTP 500");
      assert.equal(never.stale, false, "nothing to be stale: no generation was ever read");
      assert.equal(never.generation, null);
    });

    it("never switches back to an older generation (two instances refreshing one source)", async () => {
      const { a, b } = await backend.open();
      assert.equal(
        (await refreshTo(b, "alpha", G3, ["new.ch"], [[prog("new.ch", 1)]]))?.generation,
        G3,
      );
      assert.equal(
        await refreshTo(a, "alpha", G2, ["old.ch"], [[prog("old.ch", 1)]]),
        undefined,
        "the slower, older refresh is superseded",
      );
      const [st] = await a.statuses();
      assert.equal(st?.generation, G3);
      assert.deepEqual(
        (await a.channels(["alpha"])).map((c) => c.xmltvId),
        ["new.ch"],
        "the superseded switch wrote no channel",
      );
    });

    it("keeps guide channels across switches for matching, the absent ones marked not present", async () => {
      const { a, b } = await backend.open();
      await refreshTo(a, "alpha", G1, ["bbc1.uk", "daserste.de"], [[prog("bbc1.uk", 1)]]);
      await refreshTo(a, "beta", G1, ["cnn.us"], [[prog("cnn.us", 1)]]);
      await refreshTo(b, "alpha", G2, ["bbc1.uk"], [[prog("bbc1.uk", 2)]]);
      const channels = (await a.channels(["alpha", "beta"])).sort((x, y) =>
        x.xmltvId < y.xmltvId ? -1 : 1,
      );
      assert.deepEqual(channels, [
        {
          sourceId: "alpha",
          xmltvId: "bbc1.uk",
          displayNames: ["bbc1.uk HD", "bbc1.uk"],
          icon: "http://127.0.0.1:9/bbc1.uk.png",
          present: true,
        },
        {
          sourceId: "beta",
          xmltvId: "cnn.us",
          displayNames: ["cnn.us HD", "cnn.us"],
          icon: "http://127.0.0.1:9/cnn.us.png",
          present: true,
        },
        {
          sourceId: "alpha",
          xmltvId: "daserste.de",
          displayNames: ["daserste.de HD", "daserste.de"],
          icon: "http://127.0.0.1:9/daserste.de.png",
          present: false,
        },
      ]);
      assert.deepEqual(await a.channels([]), []);
      assert.deepEqual(
        (await a.channels(["beta"])).map((c) => c.xmltvId),
        ["cnn.us"],
      );
    });

    it("purges older generations in batches, keeping the one named", async () => {
      const { a, b } = await backend.open();
      const ids = Array.from({ length: 250 }, (_, i) => `ch${i}.tv`);
      // 25,000 rows: more than one purge batch.
      const many = ids.map((id) => Array.from({ length: 100 }, (_, k) => prog(id, k * 1800)));
      await refreshTo(a, "alpha", G1, ["ch0.tv"], [[prog("ch0.tv", 1)]]);
      await refreshTo(a, "alpha", G2, ids, many);
      await refreshTo(a, "alpha", G3, ["ch0.tv"], [[prog("ch0.tv", 3)]]);
      const count = async (g: number) =>
        [...(await b.programmes("alpha", g, ids)).values()].reduce((n, l) => n + l.length, 0);
      assert.equal(await count(G2), 25_000);
      await b.purge("alpha", G3, G1);
      assert.equal(await count(G2), 0);
      assert.equal(await count(G1), 1, "the generation to keep stays");
      assert.equal(await count(G3), 1, "the bound itself is not below the bound");
      await b.purge("alpha", G3, null);
      assert.equal(await count(G1), 0);
      assert.deepEqual(await a.sourcesWithProgrammes(), ["alpha"]);
      await a.forget("alpha");
      await a.purge("alpha", G3 + 1, null);
      assert.deepEqual(await b.sourcesWithProgrammes(), []);
      assert.deepEqual(await b.channels(["alpha"]), []);
      assert.deepEqual(await b.statuses(), []);
    });

    it("records a not-modified answer and forgets validators without touching the data", async () => {
      const { a, b } = await backend.open();
      assert.equal(await a.recordNotModified("alpha", G2, {}), undefined, "no row yet");
      await refreshTo(a, "alpha", G1, ["bbc1.uk"], [[prog("bbc1.uk", 1)]]);
      await b.recordFailure("alpha", G2, "HTTP 503");
      const same = await b.recordNotModified("alpha", G3, { not_modified: true });
      assert.equal(same?.stale, false);
      assert.equal(same?.error, null);
      assert.equal(same?.lastSuccess, G3);
      assert.equal(same?.generation, G1);
      assert.equal(same?.etag, '"v1"');
      assert.deepEqual(same?.metadata, { not_modified: true });
      const cleared = await a.clearValidators("alpha");
      assert.equal(cleared?.etag, null);
      assert.equal(cleared?.generation, G1);
    });

    if (backend.name === "PostgreSQL")
      it("counts mirrored writes in state_versions, not programme rows", async () => {
        const { a, guideVersion } = await backend.open();
        const version = guideVersion!;
        const v0 = await version();
        await a.saveSource(source("alpha"), undefined);
        const v1 = await version();
        assert.ok(v1 > v0, "a source write is seen by the other instances");
        const writer = await a.openProgrammeWriter("alpha", G1);
        await writer.write((insert) => insert(prog("bbc1.uk", 1)));
        await writer.close();
        assert.equal(await version(), v1, "rows of an unswitched generation are nobody's business");
        await a.switchGeneration([], status("alpha", G1, [0, 1]));
        const v2 = await version();
        assert.ok(v2 > v1, "the switch is");
        assert.equal(await a.switchGeneration([], status("alpha", G1, [0, 1])), undefined);
        assert.equal(await a.saveSource(source("alpha"), undefined), false);
        assert.equal(await version(), v2, "refused writes change nothing");
      });
  });
}
