import { isoSeconds } from "@svc/core/auth";
import { desc, eq, lt } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { playbackAccessLog } from "../../db/schema/index.js";
import { createWriteBehindQueue } from "../queue/write-behind-queue.js";
import { type AccessEntry, createAccessLogWriter } from "./access-log-writer.js";
import type { PlaybackKeyStore } from "./key-store.js";

export type { AccessEntry } from "./access-log-writer.js";

function renderAccess(a: typeof playbackAccessLog.$inferSelect) {
  return {
    id: String(a.id),
    token_id: a.tokenId,
    token_prefix: a.tokenPrefix,
    path: a.path,
    channel_id: a.channelId,
    status: a.status,
    remote: a.remote,
    created_at: isoSeconds(new Date(a.createdAt)),
  };
}

export interface AccessLog {
  /** Queues one access record (and the key's `last_used_at`); never waits for the disk. */
  record(entry: AccessEntry): void;
  list(query: { limit: number; tokenId: string | undefined }): ReturnType<typeof renderAccess>[];
  /** Deletes every record (after writing what is queued); returns the count. */
  clear(): number;
  /** Retention: deletes records older than `days`; returns the count. */
  purge(days: number, now?: number): number;
  flush(): void;
  close(): void;
  /** Toggles recording (benchmarks compare on vs off in one run). */
  readonly enabled: boolean;
}

/**
 * The playback access log: a bounded write-behind queue, one transaction per
 * batch that inserts the records and moves `last_used_at` of the keys used.
 */
export function createAccessLog(
  db: StateDb,
  keys: PlaybackKeyStore,
  options: { enabled: boolean; onError: (err: unknown, dropped: number) => void },
): AccessLog {
  const insert = createAccessLogWriter(db);
  const queue = createWriteBehindQueue<AccessEntry>({
    maxItems: 2000,
    flushIntervalMs: 200,
    onError: options.onError,
    write(batch) {
      const used = new Map<string, number>();
      for (const e of batch) used.set(e.tokenId, Math.max(used.get(e.tokenId) ?? 0, e.createdAt));
      db.transaction((tx) => {
        insert(batch);
        keys.markUsed(tx, used);
      });
    },
  });
  return {
    enabled: options.enabled,
    record(entry) {
      if (options.enabled) queue.push(entry);
    },
    list({ limit, tokenId }) {
      queue.flush();
      return db
        .select()
        .from(playbackAccessLog)
        .where(tokenId === undefined ? undefined : eq(playbackAccessLog.tokenId, tokenId))
        .orderBy(desc(playbackAccessLog.id))
        .limit(limit)
        .all()
        .map(renderAccess);
    },
    clear() {
      queue.flush();
      return db.delete(playbackAccessLog).run().changes;
    },
    purge(days, now = Date.now()) {
      queue.flush();
      const cutoff = now - days * 86_400_000;
      return db.delete(playbackAccessLog).where(lt(playbackAccessLog.createdAt, cutoff)).run()
        .changes;
    },
    flush: () => void queue.flush(),
    close: () => queue.close(),
  };
}
