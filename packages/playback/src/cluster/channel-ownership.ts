import type {
  ChannelLease,
  ChannelLeaseStore,
  LeaseHolder,
  LeaseView,
} from "./channel-lease-store.js";

/**
 * Lease timing: renewed every 3 s, good for 10 s. A dead owner's lease is free at most
 * 10 s after its last renewal, and a survivor takes it at the next play request or
 * autostart sweep (2 s) and publishes within a few seconds more: inside the 20 s of the
 * operator contract ("Cluster mode"). Three renewals fit in one TTL, so one slow
 * database round trip does not cost the lease.
 */
export const LEASE_TTL_MS = 10_000;
export const LEASE_RENEW_MS = 3_000;
/** How long another instance's lease is believed without asking the database again. */
const PEER_CACHE_MS = 2_000;

/** Who packages a channel, as this instance sees it now. */
export type Owner =
  | { readonly kind: "self"; readonly generation: number }
  | { readonly kind: "peer"; readonly lease: ChannelLease }
  | { readonly kind: "none" };

export interface ChannelOwnershipOptions {
  readonly store: ChannelLeaseStore;
  /** This instance; its `url` is known once the server listens ("" before). */
  readonly self: () => LeaseHolder;
  /**
   * A held lease was lost (not renewed in time, or taken over): stop packaging the channel.
   * The packaging cluster, built after the session manager, subscribes with `whenLost`.
   */
  readonly onLost?: (channelId: string) => void;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
  readonly ttlMs?: number;
  readonly renewEveryMs?: number;
}

/**
 * This instance's side of the packaging leases: which channels it holds (answered
 * synchronously, so a play request of an owned channel never waits on the database),
 * the renewal loop, and a short memory of the other instances' leases.
 */
export interface ChannelOwnership {
  /** Does this instance hold the channel's lease (and may package it)? */
  holds(channelId: string): boolean;
  /** The lease generation of a held channel (its publication generations start with it). */
  generation(channelId: string): number | undefined;
  /** The channels this instance holds. */
  held(): string[];
  /**
   * Who packages the channel. `claim`: take the lease when nobody holds a live one (a
   * play request that would start the channel, a warmup, an autostart).
   */
  resolve(channelId: string, claim: boolean): Promise<Owner>;
  /** Forgets another instance's lease (it did not answer, or it no longer owns the channel). */
  forget(channelId: string): void;
  /** The local session stopped: the lease is given up, so another instance may start at once. */
  release(channelId: string): void;
  /** Stops renewing and releases every held lease (shutdown). */
  close(): Promise<void>;
  /** Tells `listener` of every lease lost from now on (with `onLost`, if given). */
  whenLost(listener: (channelId: string) => void): void;
}

interface Held {
  readonly generation: number;
  /** Local epoch ms after which the lease may be someone else's: stop packaging. */
  deadline: number;
}

/**
 * @example
 * const ownership = createChannelOwnership({ store, self: () => ({ id, url }), onLost: (id) => void sessions.stop(id) });
 * const owner = await ownership.resolve("news", true); // { kind: "self", generation: 4 }
 */
export function createChannelOwnership(o: ChannelOwnershipOptions): ChannelOwnership {
  const ttlMs = o.ttlMs ?? LEASE_TTL_MS;
  const log = o.log ?? (() => undefined);
  const held = new Map<string, Held>();
  const peers = new Map<string, { readonly lease: ChannelLease; readonly until: number }>();
  const inflight = new Map<string, Promise<Owner>>();
  const releases = new Set<Promise<void>>();
  const lostListeners: ((channelId: string) => void)[] = [];
  let renewing = false;
  let closed = false;

  const lose = (channelId: string, why: string) => {
    if (!held.delete(channelId)) return;
    log("channel lease lost", { channel_id: channelId, reason: why });
    o.onLost?.(channelId);
    for (const listener of lostListeners) listener(channelId);
  };

  const remember = (view: LeaseView, started: number): Owner => {
    peers.set(view.lease.channelId, {
      lease: view.lease,
      until: started + Math.min(PEER_CACHE_MS, view.ttlLeftMs),
    });
    return { kind: "peer", lease: view.lease };
  };

  const ask = async (channelId: string, claim: boolean): Promise<Owner> => {
    const started = Date.now();
    const me = o.self();
    if (claim && me.url !== "" && !closed) {
      const r = await o.store.acquire(channelId, me, ttlMs);
      if (r.kind === "held") return remember(r, started);
      held.set(channelId, { generation: r.lease.generation, deadline: started + r.ttlLeftMs });
      peers.delete(channelId);
      log("channel lease acquired", { channel_id: channelId, generation: r.lease.generation });
      return { kind: "self", generation: r.lease.generation };
    }
    const view = await o.store.current(channelId);
    // A lease of this instance it no longer runs (released, not yet expired): nobody packages.
    if (view === undefined || view.lease.ownerId === me.id) return { kind: "none" };
    return remember(view, started);
  };

  const renewAll = async () => {
    const now = Date.now();
    for (const [id, h] of held) if (h.deadline <= now) lose(id, "not renewed in time");
    if (renewing || held.size === 0) return;
    renewing = true;
    const started = Date.now();
    const asked = [...held].map(([channelId, h]) => ({ channelId, generation: h.generation }));
    try {
      const kept = new Set(await o.store.renew(o.self(), asked, ttlMs));
      for (const { channelId, generation } of asked) {
        const h = held.get(channelId);
        if (h?.generation !== generation) continue;
        if (kept.has(channelId)) h.deadline = started + ttlMs;
        else lose(channelId, "taken over by another instance");
      }
    } catch (err) {
      // Kept until its deadline: the next tick tries again, the deadline check above stops
      // packaging before another instance may take the channel.
      log("channel lease renewal failed", { error: errorText(err) });
    } finally {
      renewing = false;
    }
  };
  const timer = setInterval(() => void renewAll(), o.renewEveryMs ?? LEASE_RENEW_MS);
  timer.unref();

  const release = (channelId: string) => {
    const h = held.get(channelId);
    if (h === undefined) return;
    held.delete(channelId);
    const p = o.store
      .release(o.self(), channelId, h.generation)
      .catch((err: unknown) =>
        log("channel lease release failed", { channel_id: channelId, error: errorText(err) }),
      )
      .finally(() => releases.delete(p));
    releases.add(p);
  };

  return {
    holds(channelId) {
      const h = held.get(channelId);
      return h !== undefined && h.deadline > Date.now();
    },
    generation: (channelId) => held.get(channelId)?.generation,
    held: () => [...held.keys()],
    resolve(channelId, claim) {
      const h = held.get(channelId);
      if (h !== undefined) {
        if (h.deadline > Date.now())
          return Promise.resolve({ kind: "self", generation: h.generation });
        lose(channelId, "not renewed in time");
      }
      const peer = peers.get(channelId);
      if (peer !== undefined && peer.until > Date.now())
        return Promise.resolve({ kind: "peer", lease: peer.lease });
      // One database question per channel at a time, however many players ask.
      const key = `${claim ? "claim" : "look"}\0${channelId}`;
      let p = inflight.get(key);
      if (p === undefined) {
        p = ask(channelId, claim).finally(() => inflight.delete(key));
        inflight.set(key, p);
      }
      return p;
    },
    forget: (channelId) => void peers.delete(channelId),
    release,
    whenLost: (listener) => void lostListeners.push(listener),
    async close() {
      closed = true;
      clearInterval(timer);
      for (const id of [...held.keys()]) release(id);
      await Promise.all([...releases]);
    },
  };
}

/** An error's message for a log line (database errors carry no password; URLs are not in them). */
function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
