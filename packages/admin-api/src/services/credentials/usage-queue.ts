import type { CredentialRepository, Stamped } from "../../storage/credentials/repository.js";
import { createWriteBehindQueue } from "../queue/write-behind-queue.js";

const DAY_MS = 86_400_000;

/** A usage record: which credential, and when. */
interface Use {
  readonly tokenId: string;
  readonly createdAt: number;
}

/**
 * Now, in epoch microseconds: the stamp that orders usage records across processes. The
 * high-resolution clock from the process's time origin, which is read in microseconds, so
 * workers' stamps of requests a client sent one after the other keep their order.
 */
export function usageStamp(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

export interface UsageQueue<Entry> {
  /** Queues one record, stamped now unless `stampUs` says when it was recorded; never waits for the database. */
  push(entry: Entry, stampUs?: number): void;
  /** Retention: deletes records older than `days` (after writing what is queued); returns the count. */
  purge(days: number, now?: number): Promise<number>;
  /** Writes everything queued (and any write in flight). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The usage log of a credential kind (the API-token audit, the playback access log): a
 * bounded write-behind queue, one transaction per batch that appends the records and moves
 * `last_used_at` of the credentials whose use `counts`, without touching their version
 * (other instances do not reload for it; listings read the committed times instead).
 */
export function createUsageQueue<Entry extends Use>(
  repo: Pick<CredentialRepository<unknown, Stamped<Entry>>, "appendLog" | "purgeLog">,
  store: { noteUsed(id: string, at: number): void },
  options: {
    readonly maxItems: number;
    readonly counts: (entry: Entry) => boolean;
    readonly onError: (err: unknown, dropped: number) => void;
  },
): UsageQueue<Entry> {
  const queue = createWriteBehindQueue<Stamped<Entry>>({
    maxItems: options.maxItems,
    flushIntervalMs: 200,
    onError: options.onError,
    async write(batch) {
      const used = new Map<string, number>();
      for (const e of batch)
        if (options.counts(e)) used.set(e.tokenId, Math.max(used.get(e.tokenId) ?? 0, e.createdAt));
      await repo.appendLog(batch, used);
      for (const [id, at] of used) store.noteUsed(id, at);
    },
  });
  return {
    push: (entry, stampUs = usageStamp()) => queue.push({ ...entry, stampUs }),
    async purge(days, now = Date.now()) {
      await queue.flush();
      return repo.purgeLog(now - days * DAY_MS);
    },
    flush: async () => void (await queue.flush()),
    close: () => queue.close(),
  };
}
