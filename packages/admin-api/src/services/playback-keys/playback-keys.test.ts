import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../credentials/secrets.js";
import { openStateDatabase, type StateDatabase } from "../../db/client.js";
import { playbackKeysRepository } from "../../storage/credentials/repository.js";
import { sqliteDialect } from "../../storage/dialect/dialect.js";
import { createAccessLog } from "./access-log.js";
import { assertKeyCoversChannel, checkPlaybackKey } from "./authorize-key.js";
import { createPlaybackKeyStore, type PlaybackKeyRecord } from "./key-store.js";

/** A real state database in a temp dir, migrated like the gateway's. */
describe("playback keys on a real state database", () => {
  let dir: string;
  let state: StateDatabase;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "svc-keys-"));
    state = openStateDatabase(dir);
  });
  after(() => {
    state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plaintext = `v1${"K".repeat(126)}`;
  const record = (over: Partial<PlaybackKeyRecord> = {}): PlaybackKeyRecord => ({
    id: "pk_test",
    name: "t",
    note: "",
    tokenPrefix: plaintext.slice(0, 10),
    digest: sha256Hex(plaintext),
    channelIds: ["news"],
    enabled: true,
    createdAt: 1_000,
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: null,
    maxConnections: null,
    revision: 1,
    xtreamUsername: null,
    xtreamPasswordDigest: null,
    ...over,
  });

  const repo = () => playbackKeysRepository(sqliteDialect(state.db));

  it("accepts an active key and refuses disabled, revoked and expired ones", async () => {
    const keys = await createPlaybackKeyStore(repo());
    await keys.insert(record());
    const ok = checkPlaybackKey(keys, plaintext);
    assert.equal(ok.ok, true);
    const cases: [Partial<PlaybackKeyRecord>, string][] = [
      [{ enabled: false }, "disabled"],
      [{ revokedAt: 5 }, "revoked"],
      [{ expiresAt: 10 }, "expired"],
    ];
    for (const [over, label] of cases) {
      await keys.replace(record(over), 1);
      const r = checkPlaybackKey(keys, plaintext, 20);
      assert.equal(r.ok, false, label);
      assert.equal(r.key?.id, "pk_test", label);
    }
    // A reloaded store reads the committed row.
    const reloaded = await createPlaybackKeyStore(repo());
    assert.equal(reloaded.get("pk_test")?.expiresAt, 10);
    assert.equal(checkPlaybackKey(keys, `v1${"L".repeat(126)}`).key, undefined);
    assert.equal(checkPlaybackKey(keys, "v1short").ok, false);
  });

  it("limits a scoped key to its channels", () => {
    const k = record();
    assertKeyCoversChannel(k, "news");
    assert.throws(() => assertKeyCoversChannel(k, "sport"), /not covered/);
    assertKeyCoversChannel(record({ channelIds: [] }), "sport");
  });

  it("batches access records with last_used_at and purges by retention", async () => {
    const keys = await createPlaybackKeyStore(repo());
    await keys.replace(record(), 1);
    const log = createAccessLog(repo(), keys, {
      enabled: true,
      onError: (e) => assert.fail(String(e)),
    });
    const day = 86_400_000;
    const now = 100 * day;
    const entry = (createdAt: number) => ({
      tokenId: "pk_test",
      tokenPrefix: plaintext.slice(0, 10),
      path: "/p/v1KKKKKKKK…/playlist.m3u",
      channelId: null,
      status: 200,
      remote: "127.0.0.1",
      createdAt,
    });
    log.record(entry(now - 40 * day));
    log.record(entry(now - 31 * day));
    log.record(entry(now - 29 * day));
    log.record(entry(now - 1));
    assert.equal((await log.list({ limit: 10, tokenId: "pk_test" })).length, 4);
    assert.equal(keys.get("pk_test")?.lastUsedAt, now - 1);
    assert.equal(await log.purge(30, now), 2);
    assert.deepEqual(
      (await log.list({ limit: 10, tokenId: undefined })).map((a) => a.created_at),
      [
        new Date(now - 1).toISOString().slice(0, 19) + "Z",
        new Date(now - 29 * day).toISOString().slice(0, 19) + "Z",
      ],
    );
    assert.equal(await log.clear(), 2);
    await log.close();
  });

  it("records nothing when the access log is off", async () => {
    const keys = await createPlaybackKeyStore(repo());
    const log = createAccessLog(repo(), keys, { enabled: false, onError: () => undefined });
    log.record({
      tokenId: "x",
      tokenPrefix: "x",
      path: "/",
      channelId: null,
      status: 200,
      remote: "",
      createdAt: 1,
    });
    assert.deepEqual(await log.list({ limit: 10, tokenId: "x" }), []);
  });
});
