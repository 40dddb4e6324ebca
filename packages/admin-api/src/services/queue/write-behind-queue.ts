/**
 * A bounded write-behind queue: request paths `push` records in memory and a
 * timer writes them in one transaction. When the queue holds `maxItems` the
 * push itself flushes (synchronously, one transaction), so memory stays bounded
 * and nothing is dropped. `flush()` is also called before reads that must see
 * every record and on shutdown.
 *
 * What a crash can lose: records pushed since the last flush (at most
 * `flushIntervalMs` worth, and never more than `maxItems`).
 */
export interface WriteBehindQueue<T> {
  push(item: T): void;
  /** Writes everything queued now; returns how many records were written. */
  flush(): number;
  /** Records waiting to be written. */
  readonly size: number;
  /** Stops the timer after a final flush. */
  close(): void;
}

export interface WriteBehindOptions<T> {
  /** Writes a batch in one transaction; it must throw to signal failure. */
  readonly write: (items: readonly T[]) => void;
  readonly maxItems?: number;
  readonly flushIntervalMs?: number;
  readonly onError?: (err: unknown, dropped: number) => void;
}

export function createWriteBehindQueue<T>(options: WriteBehindOptions<T>): WriteBehindQueue<T> {
  const maxItems = options.maxItems ?? 1000;
  const interval = options.flushIntervalMs ?? 200;
  let items: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const flush = (): number => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (items.length === 0) return 0;
    const batch = items;
    items = [];
    try {
      options.write(batch);
      return batch.length;
    } catch (err) {
      options.onError?.(err, batch.length);
      return 0;
    }
  };

  return {
    push(item) {
      if (closed) {
        // After close (shutdown) there is no timer: write at once.
        options.write([item]);
        return;
      }
      items.push(item);
      if (items.length >= maxItems) flush();
      else if (timer === undefined) {
        timer = setTimeout(flush, interval);
        timer.unref();
      }
    },
    flush,
    get size() {
      return items.length;
    },
    close() {
      flush();
      closed = true;
    },
  };
}
