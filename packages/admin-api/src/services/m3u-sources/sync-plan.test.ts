import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runToEnd } from "@svc/core/time-slices";
import { storedChannel } from "@svc/test-kits/channel";
import { openStateDatabase, type StateDatabase } from "../../db/client.js";
import { channelRepository } from "../../storage/channels/channel-repository.js";
import type { StoredChannel } from "../../storage/channels/stored-channel.js";
import { sqliteDialect } from "../../storage/dialect/dialect.js";
import { type ChannelStore, createChannelStore } from "../channels/channel-store.js";
import { type SyncSource, syncSteps } from "./sync-plan.js";

// The plan over a real channel store on a real SQLite file: each case syncs a list, commits
// what the plan says as a sync does, and reads the catalog back.

const url = (path: string) => `http://127.0.0.1:9/${path}`;
const entry = (attrs: string, title: string, path: string) =>
  `#EXTINF:-1 ${attrs},${title}\n${url(path)}\n`;
const list = (...entries: string[]) => `#EXTM3U\n${entries.join("")}`;

describe("M3U source sync plan", () => {
  let dir: string;
  let state: StateDatabase;
  let store: ChannelStore;
  const source = (over: Partial<SyncSource> = {}): SyncSource => ({
    id: "prov",
    groupFilter: [],
    removeMissing: false,
    ...over,
  });
  const sync = async (text: string, src = source()) => {
    const plan = runToEnd(syncSteps([text], src, store));
    if (plan.put.length > 0 || plan.remove.length > 0)
      await store.commit({ put: plan.put, remove: plan.remove });
    return plan;
  };
  const counts = (p: { created: number; updated: number; disabled: number; skipped: number }) => [
    p.created,
    p.updated,
    p.disabled,
    p.skipped,
  ];
  /** An operator's edit: the channel written as the channel routes write it. */
  const edit = (id: string, over: Partial<StoredChannel>) => {
    const c = store.get(id)!;
    return store.commit({ put: [{ ...c, ...over, revision: c.revision + 1 }] });
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-m3u-sync-"));
    state = openStateDatabase(dir);
    store = await createChannelStore(channelRepository(sqliteDialect(state.db)), []);
    // A channel no source owns, on a URL the provider lists too: never adopted.
    await store.commit({
      put: [
        storedChannel("a", {
          title: "Mine",
          epg_id: "a",
          source_url: url("a.m3u8"),
          updated_at: 1,
        }),
      ],
    });
  });
  after(() => {
    state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates owned channels next to an unowned one with the same URL", async () => {
    const p = await sync(
      list(
        entry('tvg-id="a" group-title="G1"', "Alpha", "a.m3u8"),
        entry('tvg-id="b" group-title="G2"', "Beta", "b.m3u8"),
        entry('group-title="G2"', "Gamma", "c.m3u8"),
      ),
    );
    assert.deepEqual(counts(p), [3, 0, 0, 0]);
    assert.equal(store.get("a")?.m3u_source, undefined);
    assert.equal(store.get("a")?.title, "Mine");
    const a = store.get("a-2")!;
    assert.equal(a.m3u_source, "prov");
    assert.deepEqual(a.m3u_synced, {
      title: "Alpha",
      group: "G1",
      epg_id: "a",
      epg_name: "",
      sort_order: a.sort_order,
      guide_number: "",
      disabled: false,
    });
    assert.equal(store.get("b")?.source_url, url("b.m3u8"));
    assert.equal(store.get("Gamma")?.group, "G2");
  });

  it("keeps each field an operator edited and follows the provider in the others", async () => {
    await edit("b", { title: "Operator Beta", sort_order: 99, epg_name: "beta-guide" });
    const p = await sync(
      list(
        entry('tvg-id="a" group-title="G1"', "Alpha", "a.m3u8"),
        entry('tvg-id="b" tvg-name="B" group-title="Renamed"', "Beta 2", "b2.m3u8"),
        entry('group-title="G2"', "Gamma", "c.m3u8"),
      ),
    );
    assert.deepEqual(counts(p), [0, 1, 0, 2]);
    const b = store.get("b")!;
    assert.equal(b.title, "Operator Beta");
    assert.equal(b.sort_order, 99);
    assert.equal(b.epg_name, "beta-guide");
    assert.equal(b.group, "Renamed");
    assert.equal(b.source_url, url("b2.m3u8"));
    assert.equal(b.m3u_synced?.title, "Beta 2");
    assert.equal(b.m3u_synced?.epg_name, "B");
  });

  it("an edit set back to the provider's value follows the provider again", async () => {
    await edit("b", { title: "Beta 2" });
    await sync(
      list(
        entry('tvg-id="a" group-title="G1"', "Alpha", "a.m3u8"),
        entry('tvg-id="b" tvg-name="B" group-title="Renamed"', "Beta 3", "b2.m3u8"),
        entry('group-title="G2"', "Gamma", "c.m3u8"),
      ),
    );
    assert.equal(store.get("b")?.title, "Beta 3");
  });

  it("a vanished entry is disabled once and enabled when it returns; an operator's disable stays", async () => {
    await edit("a-2", { disabled: true });
    const gone = await sync(
      list(entry('tvg-id="b" tvg-name="B" group-title="Renamed"', "Beta 3", "b2.m3u8")),
    );
    // Gamma is disabled; Alpha was disabled by its operator: nothing to do.
    assert.deepEqual(counts(gone), [0, 0, 1, 1]);
    assert.equal(store.get("Gamma")?.disabled, true);
    const again = await sync(
      list(entry('tvg-id="b" tvg-name="B" group-title="Renamed"', "Beta 3", "b2.m3u8")),
    );
    assert.deepEqual(counts(again), [0, 0, 0, 1]);
    await sync(
      list(
        entry('tvg-id="a" group-title="G1"', "Alpha", "a.m3u8"),
        entry('tvg-id="b" tvg-name="B" group-title="Renamed"', "Beta 3", "b2.m3u8"),
        entry('group-title="G2"', "Gamma", "c.m3u8"),
      ),
    );
    assert.equal(store.get("Gamma")?.disabled, false);
    assert.equal(store.get("a-2")?.disabled, true);
  });

  it("group_filter keeps exact group names only; remove_missing deletes what vanished", async () => {
    const p = await sync(
      list(
        entry('tvg-id="a" group-title="G1"', "Alpha", "a.m3u8"),
        entry('tvg-id="b" tvg-name="B" group-title="renamed"', "Beta 3", "b2.m3u8"),
        entry("", "No group", "d.m3u8"),
        entry('group-title="G2"', "Gamma", "c.m3u8"),
      ),
      source({ groupFilter: ["G1", "G2"], removeMissing: true }),
    );
    // "renamed" is not "Renamed"; an entry without a group matches no name.
    assert.deepEqual(counts(p), [0, 0, 1, 4]);
    assert.equal(store.get("b"), undefined);
    assert.ok(store.get("a-2") && store.get("Gamma") && store.get("a"));
  });

  it("entries of one title with different tvg-ids are never taken for each other", async () => {
    const other = source({ id: "prov2" });
    const first = await sync(
      list(
        entry('tvg-id="s1" group-title="G"', "Same", "s1a.m3u8"),
        entry('tvg-id="s2" group-title="G"', "Same", "s2a.m3u8"),
      ),
      other,
    );
    assert.deepEqual(counts(first), [2, 0, 0, 0]);
    const next = await sync(
      list(
        entry('tvg-id="s3" group-title="G"', "Same", "s3.m3u8"),
        entry('tvg-id="s1" group-title="G"', "Same", "s1b.m3u8"),
      ),
      other,
    );
    assert.deepEqual(counts(next), [1, 1, 1, 0]);
    assert.equal(store.get("s1")?.source_url, url("s1b.m3u8"));
    assert.equal(store.get("s2")?.disabled, true);
    assert.equal(store.get("s3")?.m3u_source, "prov2");
  });

  it("tvg-chno is the channel's guide_number: an operator's number stays, a taken one is not given", async () => {
    const numbered = source({ id: "prov3" });
    const first = await sync(
      list(
        entry('tvg-id="n1" tvg-chno="41"', "N1", "n1.m3u8"),
        entry('tvg-id="n2" tvg-chno="42.1"', "N2", "n2.m3u8"),
        entry('tvg-id="n3" tvg-chno="41"', "N3", "n3.m3u8"),
      ),
      numbered,
    );
    assert.deepEqual(counts(first), [3, 0, 0, 0]);
    assert.deepEqual(
      ["n1", "n2", "n3"].map((id) => store.get(id)?.guide_number),
      ["41", "42.1", ""],
    );
    assert.equal(store.get("n2")?.m3u_synced?.guide_number, "42.1");
    // The operator renumbers n2; the provider renumbers n1 and gives n3 the number n1 had.
    await edit("n2", { guide_number: "9" });
    const next = await sync(
      list(
        entry('tvg-id="n1" tvg-chno="43"', "N1", "n1.m3u8"),
        entry('tvg-id="n2" tvg-chno="44"', "N2", "n2.m3u8"),
        entry('tvg-id="n3" tvg-chno="41"', "N3", "n3.m3u8"),
      ),
      numbered,
    );
    assert.deepEqual(counts(next), [0, 3, 0, 0]);
    assert.deepEqual(
      ["n1", "n2", "n3"].map((id) => store.get(id)?.guide_number),
      ["43", "9", "41"],
    );
    assert.equal(store.get("n2")?.m3u_synced?.guide_number, "44");
  });

  it("a list that is not M3U throws (the syncer reports it and writes nothing)", () => {
    assert.throws(() => runToEnd(syncSteps(["<html></html>"], source(), store)), /EXTM3U/);
  });
});
