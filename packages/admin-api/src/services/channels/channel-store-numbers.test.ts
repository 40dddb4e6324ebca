import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { GatewayError } from "@svc/core/errors";
import { storedChannel } from "@svc/test-kits/channel";
import { openStateDatabase, type StateDatabase } from "../../db/client.js";
import { channelRepository } from "../../storage/channels/channel-repository.js";
import type { ChannelRepository } from "../../storage/channels/repository.js";
import type { StoredChannel } from "../../storage/channels/stored-channel.js";
import { sqliteDialect } from "../../storage/dialect/dialect.js";
import { type ChannelStore, createChannelStore } from "./channel-store.js";

// The channel store's guide_number rule over a real SQLite file (docs/hdhomerun.md "Channel
// numbers"): a number another channel has is 409, a duplicate stored by a race blocks nothing.

function channel(id: string, guide_number: string, revision = 1): StoredChannel {
  return storedChannel(id, { guide_number, revision, updated_at: 1 });
}

/** The stored channel `id` written again with `over`, as the channel routes write it. */
function next(store: ChannelStore, id: string, over: Partial<StoredChannel>): StoredChannel {
  const c = store.get(id)!;
  return { ...c, ...over, revision: c.revision + 1 };
}

const conflictNaming = (other: string) => (err: unknown) =>
  err instanceof GatewayError &&
  err.code === "conflict" &&
  err.message.startsWith("guide_number:") &&
  err.message.includes(`"${other}"`);

describe("channel store: unique guide_number", () => {
  let dir: string;
  let state: StateDatabase;
  let repository: ChannelRepository;
  let store: ChannelStore;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-channel-numbers-"));
    state = openStateDatabase(dir);
    repository = channelRepository(sqliteDialect(state.db));
    store = await createChannelStore(repository, []);
    await store.commit({ put: [channel("a", "5"), channel("b", ""), channel("c", "7.1")] });
  });
  after(() => {
    state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a number another channel has, by value, naming it; nothing is written", async () => {
    for (const taken of ["5", "05", "007.01"]) {
      const holder = taken === "5" || taken === "05" ? "a" : "c";
      await assert.rejects(
        store.commit({ put: [next(store, "b", { guide_number: taken })] }),
        conflictNaming(holder),
      );
    }
    await assert.rejects(store.commit({ put: [channel("d", "5")] }), conflictNaming("a"));
    assert.equal(store.get("b")?.guide_number, "");
    assert.equal(store.get("d"), undefined);
    assert.deepEqual((await repository.loadAll()).map((c) => [c.id, c.guide_number]).sort(), [
      ["a", "5"],
      ["b", ""],
      ["c", "7.1"],
    ]);
  });

  it("two channels of one change may not share a number; a swap through a free one may", async () => {
    await assert.rejects(
      store.commit({ put: [channel("d", "9"), channel("e", "9")] }),
      conflictNaming("d"),
    );
    // a leaves 5 in the same change that gives it to b.
    await store.commit({
      put: [next(store, "a", { guide_number: "6" }), next(store, "b", { guide_number: "5" })],
    });
    assert.deepEqual(
      ["a", "b"].map((id) => store.get(id)?.guide_number),
      ["6", "5"],
    );
  });

  it("a duplicate already stored blocks no write that keeps those numbers", async () => {
    // What two instances writing at once could leave behind: bypasses the store's check.
    await repository.commit({ put: [{ ...store.get("c")!, guide_number: "6", revision: 2 }] });
    await store.reload();
    await store.commit({
      put: ["a", "c"].map((id) => next(store, id, { disabled: true })),
    });
    assert.deepEqual(
      ["a", "c"].map((id) => [store.get(id)?.guide_number, store.get(id)?.disabled]),
      [
        ["6", true],
        ["6", true],
      ],
    );
  });
});
