import { randomBytes } from "node:crypto";
import {
  SEAT_FLUSH_MS,
  type ViewerSeat,
  type ViewerSeatStore,
} from "./hls/cluster-viewer-leases.js";
import { LEASE_TTL_MS } from "./hls/viewer-leases.js";

/**
 * A playback key's connection limit (extensions "Connection limits"): at most `max`
 * streams at once under key `keyId`. Absent on a grant: the key is unlimited.
 */
export interface KeyConnectionLimit {
  readonly keyId: string;
  readonly max: number;
}

export type SeatOutcome = "held" | "full" | "unavailable";

/**
 * The concurrent streams of each playback key. A seat is one stream: a continuous
 * connection (`stream.ts`, `auto/v…`, an Xtream `live/…`) holds a *pinned* seat from its
 * first byte until it closes; an HLS viewer holds the seat named by its viewer lease,
 * renewed by each of its requests and lapsing {@link LEASE_TTL_MS} after the last one
 * (as `max_viewers` seats do).
 */
export interface KeyConnections {
  /**
   * Takes seat `seatId` of `keyId` when fewer than `max` are live, or renews it when it
   * is live already. Synchronous when memory decides; a promise when a cluster's shared
   * database must count.
   */
  hold(
    keyId: string,
    seatId: string,
    max: number,
    pinned: boolean,
    now?: number,
  ): SeatOutcome | Promise<SeatOutcome>;
  /** Gives the seat back at once (a closed connection). */
  release(keyId: string, seatId: string): void;
  /**
   * Live seats of `keyId` (`active_cons`): every process's when the shared store can count
   * them at once (workers on SQLite), else those this process knows.
   */
  active(keyId: string, now?: number): number;
  close(): Promise<void>;
}

/** What {@link claimKeyConnection} answers: the seat's release, or why there is none. */
export type KeyConnectionClaim =
  | { readonly kind: "held"; readonly release: () => void }
  | { readonly kind: "full" | "unavailable" };

/**
 * Takes one continuous connection of the key: the doors that stream (`stream.ts`,
 * HDHomeRun `auto/v`, Xtream `live/`) call this once per connection and call `release`
 * when it closes. `full`: answer 429 (HDHomeRun: 503 with `X-HDHomeRun-Error: 805`).
 *
 * @example
 * const claim = await claimKeyConnection(rt.keyConnections, { keyId: "pk_1", max: 2 });
 * if (claim.kind !== "held") throw new GatewayError("too_many_requests", "…");
 * res.once("close", claim.release);
 */
export async function claimKeyConnection(
  connections: KeyConnections,
  limit: KeyConnectionLimit,
): Promise<KeyConnectionClaim> {
  const seatId = randomBytes(12).toString("base64url");
  const outcome = await connections.hold(limit.keyId, seatId, limit.max, true);
  if (outcome !== "held") return { kind: outcome };
  let released = false;
  return {
    kind: "held",
    release: () => {
      if (released) return;
      released = true;
      connections.release(limit.keyId, seatId);
    },
  };
}

interface Held {
  expires: number;
  readonly pinned: boolean;
}

/** Live seats of one key, expired ones dropped on the way. */
function liveSeats(seats: Map<string, Map<string, Held>>, keyId: string, now: number) {
  let m = seats.get(keyId);
  if (m === undefined) {
    m = new Map();
    seats.set(keyId, m);
  }
  for (const [id, held] of m) if (!held.pinned && held.expires <= now) m.delete(id);
  return m;
}

/** The seats of one process (embedded SQLite): every answer is synchronous. */
export function createKeyConnections(ttlMs = LEASE_TTL_MS): KeyConnections {
  const seats = new Map<string, Map<string, Held>>();
  return {
    hold(keyId, seatId, max, pinned, now = Date.now()) {
      const m = liveSeats(seats, keyId, now);
      const held = m.get(seatId);
      if (held !== undefined) {
        held.expires = now + ttlMs;
        return "held";
      }
      if (m.size >= max) return "full";
      m.set(seatId, { expires: now + ttlMs, pinned });
      return "held";
    },
    release(keyId, seatId) {
      const m = seats.get(keyId);
      m?.delete(seatId);
      if (m?.size === 0) seats.delete(keyId);
    },
    active: (keyId, now = Date.now()) => {
      const m = liveSeats(seats, keyId, now);
      const n = m.size;
      if (n === 0) seats.delete(keyId);
      return n;
    },
    close: async () => {},
  };
}

/**
 * The row name of a key's seats in the shared `viewer_seats` table: `/` never occurs in a
 * channel id, so key seats and channel seats never mix.
 */
const keyRow = (keyId: string) => `playback-key/${keyId}`;

/**
 * The seats of a cluster (operator contract "Cluster mode"), counted in the database
 * the instances share through the same store as `max_viewers` seats: a new seat is one
 * atomic count-and-insert, exact across instances; renewals (an HLS viewer's requests,
 * and every pinned connection still open) are written in one batch every `flushMs`; a
 * closed connection's row is deleted at once. When the database cannot be reached,
 * held seats carry on from memory and new ones are refused (`unavailable`).
 */
export function createClusterKeyConnections(options: {
  readonly store: ViewerSeatStore;
  readonly ttlMs?: number;
  readonly flushMs?: number;
  readonly onError?: (err: unknown, what: string) => void;
}): KeyConnections {
  const ttlMs = options.ttlMs ?? LEASE_TTL_MS;
  const { store } = options;
  const onError = options.onError ?? (() => {});
  const seats = new Map<string, Map<string, Held>>();
  let pending = new Map<string, ViewerSeat>();
  let flushing: Promise<void> | undefined;

  const write = async (now: number) => {
    for (const [keyId, m] of seats) {
      for (const [seatId, held] of m) {
        if (!held.pinned) continue;
        held.expires = now + ttlMs;
        pending.set(`${keyId}\0${seatId}`, {
          channelId: keyRow(keyId),
          leaseId: seatId,
          expiresAt: held.expires,
        });
      }
    }
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      for (const lost of await store.renew([...batch.values()], now)) {
        // Lapsed in the database (a stall longer than the TTL): counted again on its next request.
        const keyId = lost.channelId.slice("playback-key/".length);
        seats.get(keyId)?.delete(lost.leaseId);
      }
    } catch (err) {
      onError(err, "key connection renewal");
      for (const [k, seat] of batch) if (!pending.has(k)) pending.set(k, seat);
    }
  };
  const flush = (now = Date.now()) => {
    flushing ??= write(now).finally(() => {
      flushing = undefined;
    });
    return flushing;
  };
  const timer = setInterval(() => void flush(), options.flushMs ?? SEAT_FLUSH_MS);
  timer.unref();

  return {
    hold(keyId, seatId, max, pinned, now = Date.now()) {
      const m = liveSeats(seats, keyId, now);
      const held = m.get(seatId);
      const expiresAt = now + ttlMs;
      if (held !== undefined) {
        held.expires = expiresAt;
        pending.set(`${keyId}\0${seatId}`, {
          channelId: keyRow(keyId),
          leaseId: seatId,
          expiresAt,
        });
        return "held";
      }
      return store.claim({ channelId: keyRow(keyId), leaseId: seatId, expiresAt }, max, now).then(
        (ok): SeatOutcome => {
          if (!ok) return "full";
          liveSeats(seats, keyId, now).set(seatId, { expires: expiresAt, pinned });
          return "held";
        },
        (err: unknown): SeatOutcome => {
          onError(err, "key connection claim");
          return "unavailable";
        },
      );
    },
    release(keyId, seatId) {
      seats.get(keyId)?.delete(seatId);
      pending.delete(`${keyId}\0${seatId}`);
      store
        .release?.({ channelId: keyRow(keyId), leaseId: seatId, expiresAt: 0 })
        .catch((err: unknown) => onError(err, "key connection release"));
    },
    active: (keyId, now = Date.now()) => {
      if (store.liveNow !== undefined)
        try {
          return store.liveNow(keyRow(keyId), now);
        } catch (err) {
          onError(err, "key connection count");
        }
      return liveSeats(seats, keyId, now).size;
    },
    async close() {
      clearInterval(timer);
      await flushing;
    },
  };
}
