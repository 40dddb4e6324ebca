/**
 * A bounded write-behind queue: request paths `push` records in memory and a
 * timer writes them in one transaction. When the queue holds `maxItems` the
 * push itself starts a write, so memory stays bounded. `flush()` is also
 * called before reads that must see every record and on shutdown.
 *
 * Writes run one at a time, in push order. A synchronous writer (SQLite's)
 * has finished when `push` or `flush` returns; an asynchronous one
 * (PostgreSQL's) may still be running, and the records pushed meanwhile wait
 * for it: up to `maxItems × BACKLOG_BATCHES` of them, beyond which new records
 * are dropped and reported through `onError` (a database that stays slower
 * than the request rate must not grow the heap without bound).
 *
 * What a crash can lose: records pushed since the last write (at most
 * `flushIntervalMs` worth, plus a write in flight).
 */
export interface WriteBehindQueue<T> {
  push(item: T): void;
  /** Writes everything queued now (after a write in flight); resolves to how many records it wrote. */
  flush(): Promise<number>;
  /** Records waiting to be written. */
  readonly size: number;
  /** Writes what is queued and stops the timer; later pushes are written at once. */
  close(): Promise<void>;
}

export interface WriteBehindOptions<T> {
  /** Writes a batch in one transaction; it must throw (or reject) to signal failure. */
  readonly write: (items: readonly T[]) => void | Promise<void>;
  readonly maxItems?: number;
  readonly flushIntervalMs?: number;
  readonly onError?: (err: unknown, dropped: number) => void;
}

/** How many full batches may wait behind a write in flight before records are dropped. */
export const BACKLOG_BATCHES = 8;

export function createWriteBehindQueue<T>(options: WriteBehindOptions<T>): WriteBehindQueue<T> {
  const maxItems = options.maxItems ?? 1000;
  const interval = options.flushIntervalMs ?? 200;
  const report = (err: unknown, n: number) => options.onError?.(err, n);
  let items: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<number> | undefined;
  let overflow = 0;
  let closed = false;

  const stopTimer = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
  };
  const armTimer = () => {
    if (timer === undefined && items.length > 0 && !closed) {
      timer = setTimeout(() => void flush(), interval);
      timer.unref();
    }
  };

  /** Hands everything queued to one write; a number when the write finished synchronously. */
  const startWrite = (): number | Promise<number> => {
    stopTimer();
    const batch = items;
    items = [];
    if (overflow > 0) {
      report(new Error("write-behind backlog full: records dropped"), overflow);
      overflow = 0;
    }
    let pending: void | Promise<void>;
    try {
      pending = options.write(batch);
    } catch (err) {
      report(err, batch.length);
      return 0;
    }
    if (!(pending instanceof Promise)) return batch.length;
    const done = pending.then(
      () => batch.length,
      (err: unknown) => {
        report(err, batch.length);
        return 0;
      },
    );
    inFlight = done;
    void done.then(() => {
      inFlight = undefined;
      if (items.length >= maxItems || (closed && items.length > 0)) void startWrite();
      else armTimer();
    });
    return done;
  };

  const flush = async (): Promise<number> => {
    stopTimer();
    let written = 0;
    while (inFlight !== undefined) written += await inFlight;
    if (items.length === 0) return written;
    return written + (await startWrite());
  };

  return {
    push(item) {
      if (closed) {
        // After close (shutdown) there is no timer: write at once.
        items.push(item);
        if (inFlight === undefined) void startWrite();
        return;
      }
      if (items.length >= maxItems * BACKLOG_BATCHES) {
        overflow += 1;
        return;
      }
      items.push(item);
      if (items.length >= maxItems && inFlight === undefined) void startWrite();
      else armTimer();
    },
    flush,
    get size() {
      return items.length;
    },
    async close() {
      closed = true;
      await flush();
    },
  };
}
