import {
  createLeaseSigner,
  LEASE_TTL_MS,
  type LeaseOutcome,
  type ViewerLeases,
} from "./viewer-leases.js";

/** One viewer seat as a cluster's shared store holds it. */
export interface ViewerSeat {
  readonly channelId: string;
  readonly leaseId: string;
  /** Epoch ms after which the seat no longer counts. */
  readonly expiresAt: number;
}

/**
 * The seats of every instance of a cluster, kept in the database they share
 * (operator contract "Cluster mode": `max_viewers` counts viewers across
 * instances). The full build injects the PostgreSQL one; playback never
 * imports the database.
 */
export interface ViewerSeatStore {
  /**
   * Atomically across instances: when `seat.leaseId` holds a seat of its channel
   * that is live at `now`, extends it; otherwise takes one when fewer than `max`
   * seats of the channel are live. False: the channel is full.
   */
  claim(seat: ViewerSeat, max: number, now: number): Promise<boolean>;
  /**
   * Extends the seats among `seats` that are still live at `now` (one batch) and
   * answers the others: a seat that lapsed in the database may have been given
   * to someone else, so it is not revived without counting.
   */
  renew(seats: readonly ViewerSeat[], now: number): Promise<readonly ViewerSeat[]>;
  /** Deletes every seat expired at `now`; answers how many went. */
  sweep(now: number): Promise<number>;
  /** Deletes one seat at once (a playback key's closed connection; see `key-connections.ts`). */
  release?(seat: ViewerSeat): Promise<void>;
  /**
   * The seats of `channelId` live at `now`, counted at once: a store that can answer
   * synchronously (the workers' SQLite file) gives `active_cons` of the whole gateway.
   */
  liveNow?(channelId: string, now: number): number;
}

export interface ClusterViewerLeasesOptions {
  /** The cluster's shared `security.signing_key`: a lease minted on one instance verifies on all. */
  readonly key: Buffer;
  readonly store: ViewerSeatStore;
  readonly ttlMs?: number;
  /** How often renewals are written and expired seats deleted; well inside `ttlMs`. */
  readonly flushMs?: number;
  /** A database failure (the lease layer carries on from memory). */
  readonly onError?: (err: unknown, what: string) => void;
}

export interface ClusterViewerLeases extends ViewerLeases {
  /** Writes the buffered renewals and deletes expired seats now (the timer does so every `flushMs`). */
  flush(now?: number): Promise<void>;
  close(): Promise<void>;
}

/** Renewals reach the database this often: a live seat's stored expiry trails by at most this. */
export const SEAT_FLUSH_MS = 5_000;

const RENEWED: LeaseOutcome = { kind: "renewed" };
const FULL: LeaseOutcome = { kind: "full" };
const UNAVAILABLE: LeaseOutcome = { kind: "unavailable" };

/**
 * Viewer leases of a cluster (issue 15 item 5). Minting, and the first request
 * of a lease this instance does not hold (minted elsewhere, or lapsed here), take
 * the seat in the database: one atomic count-and-insert, exact across instances.
 * Every later request renews in memory only (no database round trip per
 * segment); renewals are written in one batch every `flushMs`, so the stored
 * expiry of a watched seat stays ahead of the clock as long as `flushMs` is well
 * below `ttlMs`. A lapsed seat frees within `ttlMs` of its last request on any
 * instance, as in a single process.
 *
 * When the database cannot be reached, seats already held keep renewing (in
 * memory, written once it is back) and new viewers are refused with
 * `unavailable` rather than admitted uncounted.
 *
 * @example
 * const leases = createClusterViewerLeases({ key: signingKey, store: pgViewerSeats });
 * const outcome = await leases.admit("news", holder, 100, c.req.query("viewer"));
 * await leases.close(); // on shutdown: the last renewals are written
 */
export function createClusterViewerLeases(
  options: ClusterViewerLeasesOptions,
): ClusterViewerLeases {
  const ttlMs = options.ttlMs ?? LEASE_TTL_MS;
  const flushMs = options.flushMs ?? SEAT_FLUSH_MS;
  const { store } = options;
  const onError = options.onError ?? (() => {});
  const signer = createLeaseSigner(options.key);
  /** channel → lease id → local expiry (ms): the seats this instance has seen live. */
  const seats = new Map<string, Map<string, number>>();
  /** Renewals not yet written, by `channel\0lease`. */
  let pending = new Map<string, ViewerSeat>();
  /** Claims in flight, so a burst of first requests of one lease makes one round trip. */
  const claiming = new Map<string, Promise<LeaseOutcome>>();
  let flushing: Promise<void> | undefined;
  let closed = false;

  const hold = (channelId: string, leaseId: string, expiresAt: number) => {
    let m = seats.get(channelId);
    if (m === undefined) {
      m = new Map();
      seats.set(channelId, m);
    }
    m.set(leaseId, expiresAt);
  };

  const claim = (
    channelId: string,
    leaseId: string,
    max: number,
    now: number,
    admitted: LeaseOutcome,
  ): Promise<LeaseOutcome> => {
    const k = `${channelId}\0${leaseId}`;
    const running = claiming.get(k);
    if (running !== undefined) return running;
    const expiresAt = now + ttlMs;
    const p = store
      .claim({ channelId, leaseId, expiresAt }, max, now)
      .then(
        (ok) => {
          if (!ok) return FULL;
          hold(channelId, leaseId, expiresAt);
          return admitted;
        },
        (err: unknown) => {
          onError(err, "viewer seat claim");
          return UNAVAILABLE;
        },
      )
      .finally(() => claiming.delete(k));
    claiming.set(k, p);
    return p;
  };

  const write = async (now: number) => {
    if (pending.size > 0) {
      const batch = pending;
      pending = new Map();
      try {
        for (const lost of await store.renew([...batch.values()], now)) {
          // Lapsed in the database (a stall longer than the TTL): the seat may be
          // someone else's now, so the lease's next request counts again (claim).
          seats.get(lost.channelId)?.delete(lost.leaseId);
          pending.delete(`${lost.channelId}\0${lost.leaseId}`);
        }
      } catch (err) {
        onError(err, "viewer seat renewal");
        // Kept for the next tick unless a newer renewal of the seat is queued.
        for (const [k, seat] of batch) if (!pending.has(k)) pending.set(k, seat);
      }
    }
    for (const [channelId, m] of seats) {
      for (const [id, expires] of m) if (expires <= now) m.delete(id);
      if (m.size === 0) seats.delete(channelId);
    }
    try {
      await store.sweep(now);
    } catch (err) {
      onError(err, "viewer seat sweep");
    }
  };

  const flush = (now = Date.now()): Promise<void> => {
    // One write at a time; a tick during a slow write waits for the next one.
    flushing ??= write(now).finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    admit(channelId, holder, max, presented, now = Date.now()) {
      if (presented !== undefined) {
        const id = signer.verify(channelId, holder, presented);
        if (id === undefined) return { kind: "bad_signature" };
        const held = seats.get(channelId)?.get(id);
        if (held !== undefined && held > now) {
          // The per-request path: memory only, written with the next batch.
          const expiresAt = now + ttlMs;
          seats.get(channelId)!.set(id, expiresAt);
          pending.set(`${channelId}\0${id}`, { channelId, leaseId: id, expiresAt });
          return RENEWED;
        }
        return claim(channelId, id, max, now, RENEWED);
      }
      const { id, lease } = signer.mint(channelId, holder);
      return claim(channelId, id, max, now, { kind: "minted", lease });
    },
    active(channelId, now = Date.now()) {
      let n = 0;
      for (const expires of seats.get(channelId)?.values() ?? []) if (expires > now) n += 1;
      return n;
    },
    flush,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await flushing;
      await flush();
    },
  };
}
