import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UNKNOWN_TOKEN_BUDGET } from "@svc/core/auth";
import type { GatewayConfig } from "@svc/core/config";
import { GatewayError } from "@svc/core/errors";
import { createMigratedDatabase, POSTGRES_MISSING } from "@svc/test-kits/private-postgres";
import { drizzle } from "drizzle-orm/node-postgres";
import { sha256Hex } from "../../credentials/secrets.js";
import { openStateDatabase } from "../../db/client.js";
import type { PgStateDb } from "../../db/pg-client.js";
import * as pgSchema from "../../db/schema-pg/index.js";
import { stateVersions } from "../../db/schema-pg/index.js";
import {
  type AccountsRepository,
  accountsRepository,
  type CredentialOverride,
} from "../../storage/accounts/repository.js";
import {
  type AccessEntry,
  type ApiTokenRow,
  type ApiTokensRepository,
  type AuditEntry,
  apiTokensRepository,
  type PlaybackKeyRow,
  type PlaybackKeysRepository,
  playbackKeysRepository,
  type Stamped,
} from "../../storage/credentials/repository.js";
import { type Dialect, postgresDialect, sqliteDialect } from "../../storage/dialect/dialect.js";
import { migrateUnderLock } from "../../storage/postgres/migrate.js";
import { createAccountDirectory } from "../accounts/account-directory.js";
import { authenticateApiToken } from "../api-tokens/authenticate.js";
import {
  deleteApiToken,
  revokeApiToken,
  rotateApiToken,
  updateApiToken,
} from "../api-tokens/change.js";
import { createApiToken } from "../api-tokens/create.js";
import { createApiTokenStore } from "../api-tokens/token-store.js";
import { createTokenUsageRecorder } from "../api-tokens/usage-recorder.js";
import { createAccessLog } from "../playback-keys/access-log.js";
import { checkPlaybackKey } from "../playback-keys/authorize-key.js";
import { createPlaybackKeyStore } from "../playback-keys/key-store.js";
import { deletePlaybackKey, revokePlaybackKey } from "../playback-keys/manage.js";

/**
 * The repositories of accounts, API tokens (+ audit) and playback keys (+ access log)
 * run the same cases on both storage kinds: a real SQLite file in a temp dir and a
 * real PostgreSQL server (private, on loopback). Each case gets a fresh database.
 */

interface Backend {
  readonly accounts: AccountsRepository;
  readonly apiTokens: ApiTokensRepository;
  readonly playbackKeys: PlaybackKeysRepository;
  /** `state_versions` (PostgreSQL only; SQLite has one writer and no versions). */
  readonly versions: (() => Promise<Record<string, number>>) | undefined;
  close(): Promise<void>;
}

const repositoriesOf = (d: Dialect) => ({
  accounts: accountsRepository(d),
  apiTokens: apiTokensRepository(d),
  playbackKeys: playbackKeysRepository(d),
});

const KINDS: [string, string | false, () => Promise<Backend>][] = [
  [
    "sqlite",
    false,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-repo-"));
      const state = openStateDatabase(dir);
      return {
        ...repositoriesOf(sqliteDialect(state.db)),
        versions: undefined,
        async close() {
          state.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
  [
    "postgres",
    POSTGRES_MISSING,
    async () => {
      const { db, close } = await createMigratedDatabase(
        {
          migrate: migrateUnderLock,
          connect: (pool) => drizzle(pool, { schema: pgSchema }) as PgStateDb,
        },
        { max: 4 },
      );
      return {
        ...repositoriesOf(postgresDialect(db)),
        versions: async () =>
          Object.fromEntries(
            (await db.select().from(stateVersions)).map((v) => [v.resource, v.version]),
          ),
        close,
      };
    },
  ],
];

const DAY = 86_400_000;

const config = {
  auth: {
    users: [
      { username: "admin", password_hash: "$2b$04$admin", role: "admin", channel_ids: [] },
      { username: "bob", password_hash: "$2b$04$bob", role: "viewer", channel_ids: ["news"] },
    ],
  },
} as unknown as GatewayConfig;

const override = (over: Partial<CredentialOverride> = {}): CredentialOverride => ({
  configUsername: "admin",
  username: "root",
  passwordHash: "$2b$04$new",
  authRevision: 1,
  updatedAt: 1_700_000_000_123,
  ...over,
});

const tokenRow = (over: Partial<ApiTokenRow> = {}): ApiTokenRow => ({
  id: "at_1",
  name: "ci",
  note: "",
  tokenPrefix: "svc_v1_abcde",
  digest: sha256Hex("at_1"),
  scopes: ["read", "write"],
  enabled: true,
  createdBy: "admin",
  createdAt: 1_700_000_000_001,
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  revision: 1,
  updatedAt: 1_700_000_000_001,
  ...over,
});

/** A record as the usage queue writes it: stamped at its `createdAt` unless told otherwise. */
const stamped = <E extends { readonly createdAt: number }>(e: E, stampUs?: number): Stamped<E> => ({
  ...e,
  stampUs: stampUs ?? e.createdAt * 1000,
});

const audit = (over: Partial<Stamped<AuditEntry>> = {}): Stamped<AuditEntry> =>
  stamped(
    {
      tokenId: "at_1",
      tokenPrefix: "svc_v1_abcde",
      method: "GET",
      path: "/v1/admin/channels",
      requiredScope: "read",
      decision: "allow",
      status: 200,
      remote: "127.0.0.1",
      userAgent: "t",
      requestId: "r",
      reason: null,
      createdAt: Date.now(),
      ...over,
    },
    over.stampUs,
  );

const keyPlaintext = (c: string) => `v1${c.repeat(126)}`;
const keyRow = (over: Partial<PlaybackKeyRow> = {}): PlaybackKeyRow => ({
  id: "pk_1",
  name: "tv",
  note: "",
  tokenPrefix: keyPlaintext("K").slice(0, 10),
  digest: sha256Hex(keyPlaintext("K")),
  channelIds: ["news", "sport"],
  enabled: true,
  createdAt: 1_700_000_000_002,
  lastUsedAt: null,
  revokedAt: null,
  expiresAt: null,
  maxConnections: null,
  revision: 1,
  xtreamUsername: null,
  xtreamPasswordDigest: null,
  ...over,
});

const access = (over: Partial<Stamped<AccessEntry>> = {}): Stamped<AccessEntry> =>
  stamped(
    {
      tokenId: "pk_1",
      tokenPrefix: "v1KKKKKKKK",
      path: "/p/v1KKKKKKKK…/playlist.m3u",
      channelId: null,
      status: 200,
      remote: "127.0.0.1",
      createdAt: Date.now(),
      ...over,
    },
    over.stampUs,
  );

const conflict = (code: string) => (err: unknown) =>
  err instanceof GatewayError && err.code === code;

for (const [kind, skip, open] of KINDS) {
  describe(`credential repositories on ${kind}`, { skip }, () => {
    /** Runs a case on a fresh database. */
    const withBackend = (run: (b: Backend) => Promise<void>) => async () => {
      const b = await open();
      try {
        await run(b);
      } finally {
        await b.close();
      }
    };

    it(
      "stores credential overrides with a compare-and-set on the auth revision and applies them over the config",
      withBackend(async (b) => {
        assert.deepEqual(await b.accounts.overrides(), []);
        assert.equal(await b.accounts.saveOverride(override(), 0), "saved");
        assert.equal(await b.accounts.saveOverride(override(), 0), "conflict");
        assert.equal(
          await b.accounts.saveOverride(override({ configUsername: "bob", authRevision: 1 }), 0),
          "username_taken",
        );
        assert.deepEqual(await b.accounts.overrides(), [override()]);

        // Two directories are two instances over one database.
        const one = await createAccountDirectory(config, b.accounts);
        const two = await createAccountDirectory(config, b.accounts);
        const admin = one.byConfigUsername("admin")!;
        assert.deepEqual(
          [admin.username, admin.passwordHash, admin.authRevision, admin.role],
          ["root", "$2b$04$new", 1, "admin"],
        );
        assert.equal(one.find("admin"), undefined);
        assert.equal(one.find("root")?.configUsername, "admin");
        assert.equal(one.byConfigUsername("bob")?.authRevision, 0, "no override: the config entry");

        assert.equal(await two.commit({ ...admin, username: "boss", authRevision: 2 }, 1), "saved");
        assert.equal(two.find("boss")?.authRevision, 2);
        assert.equal(one.find("root")?.authRevision, 1, "the other instance until it reloads");
        // A change from the stale instance is refused, and leaves it reloaded.
        assert.equal(
          await one.commit({ ...admin, passwordHash: "x", authRevision: 2 }, 1),
          "conflict",
        );
        assert.equal(one.find("boss")?.authRevision, 2);
        await one.reload();
        await one.reload();
        assert.equal(one.byConfigUsername("admin")?.username, "boss");
        assert.equal(one.list().length, 2);
      }),
    );

    it(
      "loads API tokens back field for field and moves them through create, revoke, expiry, rotation and delete",
      withBackend(async (b) => {
        await b.apiTokens.insert(tokenRow({ expiresAt: 1_900_000_000_000, note: "n" }));
        assert.deepEqual(await b.apiTokens.list(), [
          tokenRow({ expiresAt: 1_900_000_000_000, note: "n" }),
        ]);
        assert.equal(await b.apiTokens.update(tokenRow({ name: "x", revision: 2 }), 2), false);
        assert.equal(await b.apiTokens.update(tokenRow({ name: "x", revision: 2 }), 1), true);
        assert.equal((await b.apiTokens.list())[0]?.name, "x");
        assert.equal(await b.apiTokens.remove("at_1", 1), false);
        assert.equal(await b.apiTokens.remove("at_1", 2), true);
        assert.deepEqual(await b.apiTokens.list(), []);

        const store = await createApiTokenStore(b.apiTokens);
        const created = await createApiToken(store, "admin", {
          name: "deploy",
          note: "",
          scopes: ["read"],
          expiresInSec: 3600,
        });
        const id = created.credential.id;
        assert.equal(authenticateApiToken(store, created.token).ok, true);
        const stored = (await b.apiTokens.list())[0]!;
        assert.equal(stored.digest, sha256Hex(created.token), "the digest, never the plaintext");
        assert.ok(!JSON.stringify(stored).includes(created.token));
        // Another instance loads the same record.
        const other = await createApiTokenStore(b.apiTokens);
        assert.deepEqual(other.list(), store.list());
        assert.equal(authenticateApiToken(other, created.token).ok, true);

        const rotated = await rotateApiToken(store, id, '"1"');
        assert.equal(authenticateApiToken(store, created.token).ok, false);
        assert.equal(authenticateApiToken(store, rotated.token).ok, true);
        await updateApiToken(store, id, '"2"', { expires_at: "2001-01-01T00:00:00Z" });
        const expired = authenticateApiToken(store, rotated.token);
        assert.equal(!expired.ok && expired.reason, "expired");
        await updateApiToken(store, id, '"3"', { expires_at: null });
        await revokeApiToken(store, id, '"4"');
        const revoked = authenticateApiToken(store, rotated.token);
        assert.equal(!revoked.ok && revoked.reason, "revoked");
        // The other instance refuses the revoked token once its mirror reloads (the feed's job).
        await other.reload();
        const seen = authenticateApiToken(other, rotated.token);
        assert.equal(!seen.ok && seen.reason, "revoked");
        await deleteApiToken(store, id, '"5"');
        assert.equal(store.get(id), undefined);
        assert.deepEqual(await b.apiTokens.list(), []);
      }),
    );

    it(
      "refuses a token write from a stale mirror as a conflict and reloads that mirror",
      withBackend(async (b) => {
        await b.apiTokens.insert(tokenRow());
        const one = await createApiTokenStore(b.apiTokens);
        const two = await createApiTokenStore(b.apiTokens);
        await revokeApiToken(two, "at_1", '"1"');
        await assert.rejects(updateApiToken(one, "at_1", '"1"', { name: "late" }), (err) => {
          assert.ok(conflict("conflict")(err));
          assert.match((err as Error).message, /current revision is 2/);
          return true;
        });
        assert.notEqual(one.get("at_1")?.revokedAt, null, "reloaded");
        await deleteApiToken(two, "at_1", '"2"');
        await assert.rejects(deleteApiToken(one, "at_1", '"2"'), conflict("not_found"));
        assert.equal(one.get("at_1"), undefined);
      }),
    );

    it(
      "appends audit batches, moves last_used_at only forward, lists the newest of each kind and purges by retention",
      withBackend(async (b) => {
        await b.apiTokens.insert(tokenRow());
        const now = Date.now();
        await b.apiTokens.appendLog(
          [
            audit({ createdAt: now - 40 * DAY, requestId: "old" }),
            audit({ createdAt: now - 2, requestId: "k1" }),
            audit({
              tokenId: "",
              tokenPrefix: "",
              decision: "deny",
              status: 401,
              reason: "invalid",
              requiredScope: null,
              createdAt: now - 1,
              requestId: "u1",
            }),
            audit({ createdAt: now, requestId: "k2", decision: "deny", reason: "missing_scope" }),
          ],
          new Map([["at_1", now - 2]]),
        );
        await b.apiTokens.appendLog([], new Map([["at_1", now - 50]]));
        assert.deepEqual(await b.apiTokens.lastUsed(), new Map([["at_1", now - 2]]));
        const known = await b.apiTokens.newestAudit(true, 2);
        assert.deepEqual(
          known.map((a) => [a.requestId, a.decision, a.reason]),
          [
            ["k2", "deny", "missing_scope"],
            ["k1", "allow", null],
          ],
        );
        assert.ok(known[0]!.id > known[1]!.id);
        const unknown = await b.apiTokens.newestAudit(false, 10);
        assert.deepEqual(
          unknown.map(({ id: _id, ...rest }) => rest),
          [
            audit({
              tokenId: "",
              tokenPrefix: "",
              decision: "deny",
              status: 401,
              reason: "invalid",
              requiredScope: null,
              createdAt: now - 1,
              requestId: "u1",
            }),
          ],
        );
        // A token write keeps the committed usage time, whatever its mirror held.
        assert.equal(
          await b.apiTokens.update(tokenRow({ revision: 2, lastUsedAt: null }), 1),
          true,
        );
        assert.equal((await b.apiTokens.list())[0]?.lastUsedAt, now - 2);
        assert.equal(await b.apiTokens.purgeLog(now - 30 * DAY), 1);
        assert.equal(await b.apiTokens.purgeLog(now - 30 * DAY), 0);
        assert.equal((await b.apiTokens.newestAudit(true, 100)).length, 2);
      }),
    );

    it(
      "records token usage through the recorder: the unknown-token fold, the listing and last_used_at",
      withBackend(async (b) => {
        await b.apiTokens.insert(tokenRow());
        const store = await createApiTokenStore(b.apiTokens);
        const recorder = createTokenUsageRecorder(b.apiTokens, store, (err) =>
          assert.fail(String(err)),
        );
        try {
          const now = Date.now();
          recorder.record(audit({ createdAt: now }));
          const unknown = {
            tokenId: "",
            tokenPrefix: "",
            decision: "deny",
            status: 401,
            reason: "invalid",
          } as const;
          for (let i = 0; i < 1000; i++)
            recorder.recordUnknown(audit({ ...unknown, createdAt: now, remote: "127.0.0.1" }));
          for (let i = 0; i < 10; i++)
            recorder.recordUnknown(audit({ ...unknown, createdAt: now, remote: "127.0.0.2" }));
          const listed = await recorder.recent();
          // The real record, 5 + 5 individual denials, one folded summary.
          assert.equal(listed.length, 1 + 2 * UNKNOWN_TOKEN_BUDGET.perClient + 1);
          const summary = listed.find((l) => l.method === "*");
          assert.match(
            summary?.path ?? "",
            /^\(1000 more requests with unknown API tokens from 2 client\(s\) since /,
          );
          assert.equal(summary?.remote, "127.0.0.1");
          assert.equal(listed.filter((l) => l.token_id === "at_1").length, 1);
          assert.equal(store.get("at_1")?.lastUsedAt, now);
          const other = await createApiTokenStore(b.apiTokens);
          assert.equal(other.get("at_1")?.lastUsedAt, now);
          assert.equal(await recorder.purge(1, now + 2 * DAY), listed.length);
          assert.deepEqual(await recorder.recent(), []);
        } finally {
          await recorder.close();
        }
      }),
    );

    it(
      "loads playback keys back and refuses revoked, disabled, expired and stale writes",
      withBackend(async (b) => {
        await b.playbackKeys.insert(keyRow({ expiresAt: 1_900_000_000_000 }));
        assert.deepEqual(await b.playbackKeys.list(), [keyRow({ expiresAt: 1_900_000_000_000 })]);
        const one = await createPlaybackKeyStore(b.playbackKeys);
        const two = await createPlaybackKeyStore(b.playbackKeys);
        assert.equal(checkPlaybackKey(one, keyPlaintext("K")).ok, true);
        assert.equal(checkPlaybackKey(one, keyPlaintext("L")).key, undefined);
        await one.replace(keyRow({ enabled: false, revision: 2 }), 1);
        assert.equal(checkPlaybackKey(one, keyPlaintext("K")).ok, false);
        await one.replace(keyRow({ expiresAt: 10, revision: 3 }), 2);
        assert.equal(checkPlaybackKey(one, keyPlaintext("K"), 20).ok, false);
        await one.replace(keyRow({ revision: 4 }), 3);
        // The other instance still holds revision 1: its revoke (no If-Match) is refused.
        await assert.rejects(revokePlaybackKey(two, "pk_1", undefined), conflict("conflict"));
        await revokePlaybackKey(two, "pk_1", undefined);
        assert.equal(checkPlaybackKey(two, keyPlaintext("K")).ok, false);
        await one.reload();
        const check = checkPlaybackKey(one, keyPlaintext("K"));
        assert.equal(check.ok, false);
        assert.equal(check.key?.id, "pk_1", "a refused key is still named for the access log");
        await deletePlaybackKey(one, "pk_1", '"5"');
        assert.deepEqual(await b.playbackKeys.list(), []);
        assert.equal(await b.playbackKeys.remove("pk_1", 5), false);
      }),
    );

    it(
      "appends access batches (beyond one multi-row chunk), pages newest first by key, clears and purges by retention",
      withBackend(async (b) => {
        await b.playbackKeys.insert(keyRow());
        await b.playbackKeys.insert(
          keyRow({ id: "pk_2", digest: sha256Hex(keyPlaintext("M")), tokenPrefix: "v1MMMMMMMM" }),
        );
        const keys = await createPlaybackKeyStore(b.playbackKeys);
        const log = createAccessLog(b.playbackKeys, keys, {
          enabled: true,
          onError: (err) => assert.fail(String(err)),
        });
        const now = 1_000 * DAY;
        const rows = Array.from({ length: 2500 }, (_, i) =>
          access({
            tokenId: i % 2 === 0 ? "pk_1" : "pk_2",
            channelId: i % 3 === 0 ? null : `ch${i}`,
            status: i % 7 === 0 ? 403 : 200,
            createdAt: now - 40 * DAY + i,
          }),
        );
        await b.playbackKeys.appendLog(rows, new Map([["pk_1", now - 40 * DAY + 2498]]));
        const newest = await b.playbackKeys.accessLog({ limit: 3, tokenId: undefined });
        assert.deepEqual(
          newest.map(({ id: _id, ...rest }) => rest),
          [rows[2499], rows[2498], rows[2497]],
        );
        assert.equal(
          (await b.playbackKeys.accessLog({ limit: 1000, tokenId: "pk_2" })).length,
          1000,
        );
        assert.ok(
          (await b.playbackKeys.accessLog({ limit: 1000, tokenId: "pk_1" })).every(
            (a) => a.tokenId === "pk_1",
          ),
        );
        // Through the queue: recent uses, last_used_at mirrored and committed.
        log.record(access({ createdAt: now - 1 }));
        log.record(access({ tokenId: "pk_2", createdAt: now - 29 * DAY }));
        const listed = await log.list({ limit: 2, tokenId: undefined });
        assert.deepEqual(
          listed.map((a) => [a.token_id, a.created_at]),
          [
            ["pk_2", new Date(now - 29 * DAY).toISOString().slice(0, 19) + "Z"],
            ["pk_1", new Date(now - 1).toISOString().slice(0, 19) + "Z"],
          ],
        );
        assert.equal(keys.get("pk_1")?.lastUsedAt, now - 1);
        const other = await createPlaybackKeyStore(b.playbackKeys);
        await other.refreshUsage();
        assert.equal(other.get("pk_2")?.lastUsedAt, now - 29 * DAY);
        assert.equal(await log.purge(30, now), 2500);
        assert.equal(await log.clear(), 2);
        assert.deepEqual(await log.list({ limit: 10, tokenId: undefined }), []);
        await log.close();
      }),
    );

    it(
      "lists usage records by their stamp, whatever order their batches were written in",
      withBackend(async (b) => {
        await b.apiTokens.insert(tokenRow());
        await b.playbackKeys.insert(keyRow());
        // Two workers' batches: the later requests' batch is written first.
        const at = Date.now();
        const stamp = at * 1000;
        await b.playbackKeys.appendLog(
          [access({ path: "/2", stampUs: stamp + 2 }), access({ path: "/4", stampUs: stamp + 4 })],
          new Map(),
        );
        await b.playbackKeys.appendLog(
          [access({ path: "/1", stampUs: stamp + 1 }), access({ path: "/3", stampUs: stamp + 3 })],
          new Map(),
        );
        for (const tokenId of [undefined, "pk_1"])
          assert.deepEqual(
            (await b.playbackKeys.accessLog({ limit: 3, tokenId })).map((a) => a.path),
            ["/4", "/3", "/2"],
          );
        await b.apiTokens.appendLog(
          [
            audit({ requestId: "b", stampUs: stamp + 2 }),
            audit({ requestId: "d", stampUs: stamp + 4 }),
          ],
          new Map(),
        );
        await b.apiTokens.appendLog([audit({ requestId: "a", stampUs: stamp + 1 })], new Map());
        await b.apiTokens.appendLog([audit({ requestId: "c", stampUs: stamp + 3 })], new Map());
        assert.deepEqual(
          (await b.apiTokens.newestAudit(true, 10)).map((a) => a.requestId),
          ["d", "c", "b", "a"],
        );
      }),
    );

    it(
      "bumps a resource's version with each credential write and never for usage",
      { skip: kind === "sqlite" && "SQLite has one writer: no change feed, no versions" },
      withBackend(async (b) => {
        const versions = b.versions!;
        await b.apiTokens.insert(tokenRow());
        await b.playbackKeys.insert(keyRow());
        await b.accounts.saveOverride(override(), 0);
        const start = await versions();
        assert.deepEqual(start, { api_tokens: 1, playback_keys: 1, accounts: 1 });
        await b.apiTokens.appendLog([audit()], new Map([["at_1", Date.now()]]));
        await b.playbackKeys.appendLog([access()], new Map([["pk_1", Date.now()]]));
        await b.apiTokens.purgeLog(Date.now() + DAY);
        await b.playbackKeys.clearAccessLog();
        assert.deepEqual(await versions(), start, "usage and logs change no version");
        assert.equal(await b.apiTokens.update(tokenRow({ revision: 3 }), 2), false);
        assert.equal(await b.accounts.saveOverride(override({ authRevision: 3 }), 2), "conflict");
        assert.deepEqual(await versions(), start, "a refused write changes no version");
        await b.apiTokens.update(tokenRow({ revision: 2 }), 1);
        await b.playbackKeys.remove("pk_1", 1);
        await b.accounts.saveOverride(override({ authRevision: 2 }), 1);
        assert.deepEqual(await versions(), { api_tokens: 2, playback_keys: 2, accounts: 2 });
      }),
    );
  });
}
