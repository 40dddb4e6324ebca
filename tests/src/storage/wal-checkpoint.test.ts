import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { sqliteStorage } from "@svc/admin-api/storage/storage";
import { tempDir } from "../harness/gateway-process.js";

/**
 * Issue 30 item 1: the state database's connection never checkpoints inside a
 * COMMIT (`wal_autocheckpoint = 0`); a worker thread copies the WAL into the
 * database instead. The WAL must still stay bounded across several large
 * writes, and a restart must see every committed row.
 */

const ROUNDS = 6;
const ROWS_PER_ROUND = 4000;
const ROW_BYTES = 2000;
/** About 8 MiB of row data per round, 48 MiB in all. */
const ROUND_BYTES = ROWS_PER_ROUND * ROW_BYTES;

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** Polls until `check` holds; fails after `limitMs` (a bound on waiting, not a timing assertion). */
async function until(check: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`gave up waiting: ${what}`);
    await sleep(50);
  }
}

describe("SQLite WAL checkpoints off the event loop", () => {
  it("keeps the -wal file bounded across several large writes, and a restart sees them all", async () => {
    const dir = tempDir("wal-checkpoint");
    const storage = sqliteStorage(dir);
    const file = storage.location;
    const client = storage.sqlite?.$client;
    assert.ok(client);
    assert.equal(client.pragma("wal_autocheckpoint", { simple: true }), 0);
    client.exec("CREATE TABLE wal_probe (id INTEGER PRIMARY KEY, round INTEGER, body TEXT)");
    const insert = client.prepare("INSERT INTO wal_probe (round, body) VALUES (?, ?)");
    const body = "x".repeat(ROW_BYTES);
    let largestWal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      client.transaction(() => {
        for (let i = 0; i < ROWS_PER_ROUND; i++) insert.run(round, body);
      })();
      largestWal = Math.max(largestWal, fileSize(`${file}-wal`));
      // The worker copies the round into the database file on its own.
      await until(
        () => fileSize(file) >= (round + 1) * ROUND_BYTES,
        `round ${round} checkpointed into ${file}`,
      );
    }
    // Without checkpoints the WAL would hold all six rounds (48 MiB and more);
    // each write after a complete checkpoint starts it over (one round, plus the
    // rounds written while a checkpoint waits for its turn).
    assert.ok(
      largestWal < 4 * ROUND_BYTES,
      `the -wal file grew to ${largestWal} bytes over ${ROUNDS} rounds of ${ROUND_BYTES}`,
    );
    await storage.close();
    // A clean close truncates the WAL.
    assert.equal(fileSize(`${file}-wal`), 0);

    const reopened = sqliteStorage(dir);
    try {
      const again = reopened.sqlite?.$client;
      assert.ok(again);
      const rows = again.prepare("SELECT round, count(*) AS n FROM wal_probe GROUP BY round").all();
      assert.deepEqual(
        rows,
        Array.from({ length: ROUNDS }, (_, round) => ({ round, n: ROWS_PER_ROUND })),
      );
    } finally {
      await reopened.close();
    }
  });
});
