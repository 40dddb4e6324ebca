/**
 * How many denials of unknown API tokens (a `svc_v1_…` bearer that matches no
 * token) are written one by one. Anyone can send those without a credential,
 * so beyond these budgets they are folded into one summary record per window:
 * the database grows by a bounded number of rows per minute whatever the
 * request rate, and an anonymous client cannot write rows without limit.
 */
export const UNKNOWN_TOKEN_BUDGET = {
  /** Individual records per client (IPv4 address or IPv6 /64) per window. */
  perClient: 5,
  /** Individual records from all clients together per window. */
  total: 60,
  windowMs: 60_000,
  /** Clients tracked per window; past this, every new client is folded. */
  maxClients: 10_000,
} as const;

/** The folded denials of one window, written as one summary record. */
export interface FoldedDenials {
  readonly count: number;
  readonly clients: number;
  /** The client with the most folded denials (it goes into the record's `remote`). */
  readonly topClient: string;
  readonly since: number;
}

export interface UnknownTokenFold {
  /** True: write this denial as its own record; false: it was counted into the fold. */
  admit(client: string, now: number): boolean;
  /** Ends the current window: what it folded (undefined when nothing). */
  close(now: number): FoldedDenials | undefined;
}

/**
 * The budget of {@link UNKNOWN_TOKEN_BUDGET} as a fixed-window counter. The
 * caller ends a window by calling `close` (a timer, a listing read, shutdown);
 * `admit` also ends a window that has run its time.
 */
export function createUnknownTokenFold(
  budget: typeof UNKNOWN_TOKEN_BUDGET = UNKNOWN_TOKEN_BUDGET,
  onWindowEnd: (folded: FoldedDenials) => void = () => {},
): UnknownTokenFold {
  let start = 0;
  let admitted = 0;
  const perClient = new Map<string, number>();
  const folded = new Map<string, number>();
  let foldedCount = 0;
  let foldedSince = 0;

  const close = (now: number): FoldedDenials | undefined => {
    let summary: FoldedDenials | undefined;
    if (foldedCount > 0) {
      let topClient = "";
      let top = 0;
      for (const [client, n] of folded) {
        if (n > top) {
          top = n;
          topClient = client;
        }
      }
      summary = { count: foldedCount, clients: folded.size, topClient, since: foldedSince };
    }
    start = now;
    admitted = 0;
    perClient.clear();
    folded.clear();
    foldedCount = 0;
    return summary;
  };

  return {
    admit(client, now) {
      if (now - start >= budget.windowMs) {
        const summary = close(now);
        if (summary !== undefined) onWindowEnd(summary);
      }
      const seen = perClient.get(client);
      const known = seen !== undefined || perClient.size < budget.maxClients;
      if (known && admitted < budget.total && (seen ?? 0) < budget.perClient) {
        perClient.set(client, (seen ?? 0) + 1);
        admitted += 1;
        return true;
      }
      if (foldedCount === 0) foldedSince = now;
      foldedCount += 1;
      if (folded.has(client) || folded.size < budget.maxClients)
        folded.set(client, (folded.get(client) ?? 0) + 1);
      return false;
    },
    close,
  };
}

/**
 * The fold as the audit recorder uses it. A single process has its own
 * ({@link localUnknownTokenFold}); with `server.workers` > 1 the primary holds the
 * gateway's one fold and each worker asks it (`WorkerLink.fold`), so the budget is the
 * gateway's whatever worker a request reached (docs/cluster.md "Workers").
 */
export interface SharedUnknownTokenFold {
  /**
   * True: write this denial as its own record; false: it was counted into the fold. The
   * local fold answers at once, so a single process queues the record in the request.
   */
  admit(client: string, now: number): boolean | Promise<boolean>;
  /** Ends the current window now (a listing read): what it folded, written by the caller. */
  close(now: number): FoldedDenials | undefined | Promise<FoldedDenials | undefined>;
  /** `write` gets the summary of each window that ends by time (one caller writes each). */
  onWindowEnd(write: (folded: FoldedDenials) => void): void;
  /** Stops this process's timer (the local fold's); nothing for the primary's. */
  stop(): void;
}

/**
 * This process's own fold, with the timer that ends each window on time; it answers at
 * once (the workers' primary runs one for the whole gateway and answers over IPC).
 */
export function localUnknownTokenFold(
  budget: typeof UNKNOWN_TOKEN_BUDGET = UNKNOWN_TOKEN_BUDGET,
): SharedUnknownTokenFold & UnknownTokenFold {
  let write: (folded: FoldedDenials) => void = () => {};
  const fold = createUnknownTokenFold(budget, (f) => write(f));
  const timer = setInterval(() => {
    const folded = fold.close(Date.now());
    if (folded !== undefined) write(folded);
  }, budget.windowMs);
  timer.unref();
  return {
    admit: (client, now) => fold.admit(client, now),
    close: (now) => fold.close(now),
    onWindowEnd: (w) => {
      write = w;
    },
    stop: () => clearInterval(timer),
  };
}
