import { isoSeconds } from "@svc/core/auth";
import type {
  AccessEntry,
  AccessRow,
  PlaybackKeysRepository,
} from "../../storage/credentials/repository.js";
import { createUsageQueue } from "../credentials/usage-queue.js";
import type { PlaybackKeyStore } from "./key-store.js";

export type { AccessEntry } from "../../storage/credentials/repository.js";

function renderAccess(a: AccessRow) {
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
  /** Queues one access record (and the key's `last_used_at`); never waits for the database. */
  record(entry: AccessEntry): void;
  list(query: {
    limit: number;
    tokenId: string | undefined;
  }): Promise<ReturnType<typeof renderAccess>[]>;
  /** Deletes every record (after writing what is queued); returns the count. */
  clear(): Promise<number>;
  /** Retention: deletes records older than `days`; returns the count. */
  purge(days: number, now?: number): Promise<number>;
  /** Writes everything queued (and any write in flight), the other workers' too. */
  flush(): Promise<void>;
  /** Writes this process's queue only (what another worker's `flush` asks of this one). */
  flushLocal(): Promise<void>;
  close(): Promise<void>;
  /** Toggles recording (benchmarks compare on vs off in one run). */
  readonly enabled: boolean;
}

/**
 * The playback access log: a bounded write-behind queue, one transaction per
 * batch that inserts the records and moves `last_used_at` of the keys used
 * (without touching the keys' version: other instances do not reload for it;
 * listings read the committed times, {@link PlaybackKeyStore.refreshUsage}).
 */
export function createAccessLog(
  repo: PlaybackKeysRepository,
  keys: PlaybackKeyStore,
  options: {
    enabled: boolean;
    onError: (err: unknown, dropped: number) => void;
    /** Workers: has every other worker write its queue (docs/cluster.md "Workers"). */
    flushOthers?: () => Promise<void>;
  },
): AccessLog {
  const queue = createUsageQueue(repo, keys, {
    maxItems: 2000,
    counts: () => true,
    onError: options.onError,
  });
  const flush = async () => {
    await queue.flush();
    await options.flushOthers?.();
  };
  return {
    enabled: options.enabled,
    record(entry) {
      if (options.enabled) queue.push(entry);
    },
    async list(query) {
      await flush();
      return (await repo.accessLog(query)).map(renderAccess);
    },
    async clear() {
      await flush();
      return repo.clearAccessLog();
    },
    purge: queue.purge,
    flush,
    flushLocal: queue.flush,
    close: queue.close,
  };
}
