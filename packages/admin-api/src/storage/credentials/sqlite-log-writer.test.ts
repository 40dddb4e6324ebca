import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { asc } from "drizzle-orm";
import { openStateDatabase } from "../../db/client.js";
import { playbackAccessLog } from "../../db/schema/index.js";
import type { AccessEntry, Stamped } from "./repository.js";
import { createLogWriter } from "./sqlite-log-writer.js";

describe("access log writer", () => {
  it("writes full chunks and the remainder, every field in its column, in order", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-writer-"));
    const state = openStateDatabase(dir);
    try {
      const write = createLogWriter<Stamped<AccessEntry>>(state.db, playbackAccessLog);
      const rows: Stamped<AccessEntry>[] = Array.from({ length: 257 }, (_, i) => ({
        tokenId: `pk_${i % 3}`,
        tokenPrefix: `v1prefix${String(i % 10).padStart(2, "0")}`,
        path: `/p/v1prefix…/play/ch${i}/index.m3u8`,
        channelId: i % 5 === 0 ? null : `ch${i}`,
        status: i % 7 === 0 ? 403 : 200,
        remote: `127.0.0.${(i % 250) + 1}`,
        createdAt: 1_700_000_000_000 + i,
        stampUs: 1_700_000_000_000_000 + i * 1000 + (i % 7),
      }));
      state.db.transaction(() => write(rows));
      const stored = state.db
        .select()
        .from(playbackAccessLog)
        .orderBy(asc(playbackAccessLog.id))
        .all()
        .map(({ id: _id, ...rest }) => rest);
      assert.deepEqual(stored, rows);
    } finally {
      state.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
