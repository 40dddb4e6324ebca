import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createRepositories } from "../../storage/repositories.js";
import { type Storage, sqliteStorage } from "../../storage/storage.js";
import { type ChannelStore, createChannelStore } from "../channels/channel-store.js";
import { planImport, planImportInSlices } from "./import-plan.js";

describe("M3U import plan: generated ids (issue 30 item 1)", () => {
  let dir: string;
  let storage: Storage;
  let store: ChannelStore;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-import-plan-"));
    storage = sqliteStorage(dir);
    store = await createChannelStore(createRepositories(storage).channels, []);
    // The catalog already holds two of the ids the import derives.
    await store.commit({
      put: planImport("#EXTM3U\nhttp://127.0.0.1:9/old-1\nhttp://127.0.0.1:9/old-2\n", store).put,
    });
  });
  after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("20,000 entries from one host without titles: unique ids, previewed in under a second", async () => {
    // Without titles every entry derives the host as its id: each next suffix was found by
    // trying every one before it, 200 million lookups for 20,000 entries.
    const lines = ["#EXTM3U"];
    for (let i = 0; i < 20_000; i++) lines.push(`http://127.0.0.1:9/live/${i}.m3u8`);
    // CPU time, not wall time: on a loaded machine the wall clock also counts other processes.
    const cpu0 = process.cpuUsage();
    const plan = await planImportInSlices(lines.join("\n"), store);
    const cpu = process.cpuUsage(cpu0);
    const ms = (cpu.user + cpu.system) / 1000;
    const ids = plan.entries.map((e) => e.id);
    assert.equal(new Set(ids).size, 20_000);
    // 127.0.0.1 and 127.0.0.1-2 are the catalog's: the first two entries derive them and update
    // them (docs/m3u.md, "else the channel whose id the entry derives"); the rest are created.
    assert.deepEqual(plan.counts, { create: 19_998, update: 2, skip: 0, fallback: 0 });
    assert.deepEqual(ids.slice(0, 4), ["127.0.0.1", "127.0.0.1-2", "127.0.0.1-3", "127.0.0.1-4"]);
    assert.equal(ids.at(-1), "127.0.0.1-20000");
    console.log(`20,000 entries from one host planned in ${ms.toFixed(0)} ms of CPU`);
    assert.ok(ms < 1_000, `${ms.toFixed(0)} ms of CPU`);
  });

  it("a source URL finds its channel; later entries take the next derived ids, then free ones", () => {
    const plan = planImport(
      "#EXTM3U\n#EXTINF:-1,Renamed\nhttp://127.0.0.1:9/old-1\nhttp://127.0.0.1:9/a\nhttp://127.0.0.1:9/b\n",
      store,
    );
    assert.deepEqual(
      plan.entries.map((e) => [e.action, e.id]),
      [
        ["update", "127.0.0.1"],
        ["update", "127.0.0.1-2"],
        ["create", "127.0.0.1-3"],
      ],
    );
  });
});
