import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { UNKNOWN_TOKEN_BUDGET } from "@svc/core/auth";
import { count } from "drizzle-orm";
import { openStateDatabase } from "../../db/client.js";
import { apiTokenAudit } from "../../db/schema/index.js";
import { apiTokensRepository } from "../../storage/credentials/repository.js";
import { sqliteDialect } from "../../storage/dialect/dialect.js";
import { createApiTokenStore } from "./token-store.js";
import {
  AUDIT_LISTING_UNKNOWN_MAX,
  AUDIT_PATH_MAX,
  type AuditEntry,
  createTokenUsageRecorder,
} from "./usage-recorder.js";

const DAY = 86_400_000;

function entry(over: Partial<AuditEntry>): AuditEntry {
  return {
    tokenId: "at_real",
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
  };
}

const unknown = (over: Partial<AuditEntry> = {}) =>
  entry({
    tokenId: "",
    tokenPrefix: "",
    decision: "deny",
    status: 401,
    reason: "invalid",
    ...over,
  });

/** A real state database in a temp dir, with the recorder over it. */
async function withRecorder(
  run: (
    r: ReturnType<typeof createTokenUsageRecorder>,
    rows: () => Promise<number>,
  ) => Promise<void>,
) {
  const dir = mkdtempSync(join(tmpdir(), "svc-audit-"));
  const state = openStateDatabase(dir);
  const repo = apiTokensRepository(sqliteDialect(state.db));
  const recorder = createTokenUsageRecorder(repo, await createApiTokenStore(repo), () => {});
  try {
    await run(recorder, async () => {
      await recorder.flush();
      return state.db.select({ n: count() }).from(apiTokenAudit).get()!.n;
    });
  } finally {
    await recorder.close();
    state.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("API token audit: retention, folding and bounded paths (issue 12 item 1)", () => {
  it("purges records older than the retention, real and unknown alike", async () => {
    await withRecorder(async (r, rows) => {
      const now = Date.now();
      r.record(entry({ createdAt: now - 40 * DAY }));
      r.recordUnknown(unknown({ createdAt: now - 40 * DAY, remote: "127.0.0.9" }));
      r.record(entry({ createdAt: now - 2 * DAY }));
      r.recordUnknown(unknown({ createdAt: now - DAY - 60_000, remote: "127.0.0.8" }));
      assert.equal(await rows(), 4);
      assert.equal(await r.purge(30, now), 2);
      assert.equal(await rows(), 2);
      assert.equal(await r.purge(1, now), 2, "a one-day retention keeps nothing a day old");
      assert.equal(await rows(), 0);
    });
  });

  it("writes unknown-token denials one by one within the budget and folds the rest", async () => {
    await withRecorder(async (r, rows) => {
      const now = Date.now();
      for (let i = 0; i < 1000; i++)
        r.recordUnknown(unknown({ createdAt: now, remote: "127.0.0.1" }));
      for (let i = 0; i < 10; i++)
        r.recordUnknown(unknown({ createdAt: now, remote: "127.0.0.2" }));
      // 5 + 5 individual records; the listing read ends the window and writes one summary.
      const listed = await r.recent();
      assert.equal(await rows(), 2 * UNKNOWN_TOKEN_BUDGET.perClient + 1);
      const summary = listed.find((l) => l.method === "*");
      assert.ok(summary !== undefined, "a folded summary record");
      assert.match(
        summary.path,
        /^\(1000 more requests with unknown API tokens from 2 client\(s\) since /,
      );
      assert.equal(summary.remote, "127.0.0.1", "the client with the most folded requests");
      assert.equal(summary.decision, "deny");
      assert.equal(summary.status, 401);
    });
  });

  it("caps all clients together, so many addresses cannot add rows without limit", async () => {
    await withRecorder(async (r, rows) => {
      const now = Date.now();
      for (let i = 0; i < 5000; i++)
        r.recordUnknown(unknown({ createdAt: now, remote: `127.${(i >> 8) & 255}.${i & 255}.1` }));
      await r.recent();
      assert.equal(await rows(), UNKNOWN_TOKEN_BUDGET.total + 1);
    });
  });

  it("keeps real tokens' records in the listing, whatever anonymous clients sent", async () => {
    await withRecorder(async (r) => {
      const now = Date.now();
      r.record(entry({ createdAt: now, requestId: "real-1" }));
      r.record(
        entry({
          createdAt: now,
          decision: "deny",
          status: 401,
          reason: "revoked",
          requestId: "real-2",
        }),
      );
      // Many windows' worth of budgeted unknown records (each listing read ends a window).
      for (let w = 0; w < 10; w++) {
        for (let i = 0; i < 60; i++)
          r.recordUnknown(unknown({ createdAt: now, remote: `127.0.${w}.${i}` }));
        await r.recent();
      }
      const listed = await r.recent();
      assert.ok(listed.length <= 100);
      assert.deepEqual(
        listed
          .filter((l) => l.token_id === "at_real")
          .map((l) => l.request_id)
          .sort(),
        ["real-1", "real-2"],
      );
      assert.ok(listed.filter((l) => l.token_id === "").length <= AUDIT_LISTING_UNKNOWN_MAX);
    });
  });

  it("stores at most AUDIT_PATH_MAX characters of a path", async () => {
    await withRecorder(async (r) => {
      r.recordUnknown(unknown({ path: `/v1/admin/${"x".repeat(10_000)}` }));
      r.record(entry({ path: `/v1/admin/channels/${"y".repeat(10_000)}` }));
      for (const l of await r.recent())
        assert.ok(l.path.length <= AUDIT_PATH_MAX, `${l.path.length}`);
    });
  });
});
