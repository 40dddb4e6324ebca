import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Viewer leases for channels with `max_viewers` (spec "Playback" 6). The first
 * `index.m3u8` request mints a lease and is redirected (307) to the same URL with
 * `viewer=`; every later request carrying it renews it, on every play route. A lease
 * lapses {@link LEASE_TTL_MS} after its last renewal, which frees its seat: a player
 * that stops polling stops counting within that time.
 *
 * A lease is `{id}.{sig}`, the HMAC binding it to the channel and to the credential
 * that minted it (issue 12 item 7), so it cannot be moved to another channel or
 * credential, or forged. {@link createViewerLeases} holds the seats in memory per
 * process (the embedded and lite builds); a cluster counts them in its database
 * (`cluster-viewer-leases.ts`).
 */
export const LEASE_TTL_MS = 30_000;

export type LeaseOutcome =
  | { readonly kind: "renewed" }
  | { readonly kind: "minted"; readonly lease: string }
  | { readonly kind: "bad_signature" }
  | { readonly kind: "full" }
  /** The shared seat count could not be reached (cluster only): no new seat is given. */
  | { readonly kind: "unavailable" };

export interface ViewerLeases {
  /**
   * Admits a request for `channelId` limited to `max` viewers. `holder` names the
   * credential of the request (the same string for the same credential); `presented`
   * is the request's `viewer` value (undefined: mint one when a seat is free).
   * Answers synchronously when memory decides (always in a single process; a
   * renewal in a cluster) and with a promise when a cluster's database must.
   */
  admit(
    channelId: string,
    holder: string,
    max: number,
    presented: string | undefined,
    now?: number,
  ): LeaseOutcome | Promise<LeaseOutcome>;
  /** Seats of `channelId` this process knows to be live. */
  active(channelId: string, now?: number): number;
  /** Writes what is still buffered and stops timers; idempotent. */
  close?(): Promise<void>;
}

/** The in-memory seats of one process: every answer is synchronous. */
export interface MemoryViewerLeases extends ViewerLeases {
  admit(...args: Parameters<ViewerLeases["admit"]>): LeaseOutcome;
}

/** The shape of a lease; anything else in `viewer=` is refused before any HMAC. */
export const LEASE_SHAPE = /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

/** Signs and checks leases: `{id}.{HMAC(channel, holder, id)}`. */
export interface LeaseSigner {
  /** A fresh lease id and its `{id}.{sig}` text. */
  mint(channelId: string, holder: string): { readonly id: string; readonly lease: string };
  /** The lease id when `presented` is a lease of this channel and holder, else undefined. */
  verify(channelId: string, holder: string, presented: string): string | undefined;
}

export function createLeaseSigner(key: Buffer): LeaseSigner {
  const mac = (channelId: string, holder: string, id: string) =>
    createHmac("sha256", key).update(`lease\0${channelId}\0${holder}\0${id}`).digest();
  return {
    mint(channelId, holder) {
      const id = randomBytes(12).toString("base64url");
      return { id, lease: `${id}.${mac(channelId, holder, id).toString("base64url")}` };
    },
    verify(channelId, holder, presented) {
      const m = LEASE_SHAPE.exec(presented);
      if (m === null) return undefined;
      // Compare the text, not the decoded bytes: base64url has several spellings of
      // the same bytes (stray low bits in the last character), and only ours is valid.
      const given = Buffer.from(m[2]!, "latin1");
      const expected = Buffer.from(mac(channelId, holder, m[1]!).toString("base64url"), "latin1");
      return given.length === expected.length && timingSafeEqual(given, expected)
        ? m[1]
        : undefined;
    },
  };
}

export function createViewerLeases(key: Buffer, ttlMs = LEASE_TTL_MS): MemoryViewerLeases {
  /** channel → lease id → expiry (ms). */
  const seats = new Map<string, Map<string, number>>();
  const signer = createLeaseSigner(key);
  const verify = signer.verify;
  const live = (channelId: string, now: number): Map<string, number> => {
    let m = seats.get(channelId);
    if (m === undefined) {
      m = new Map();
      seats.set(channelId, m);
    }
    for (const [id, expires] of m) if (expires <= now) m.delete(id);
    return m;
  };

  return {
    admit(channelId, holder, max, presented, now = Date.now()) {
      const m = live(channelId, now);
      if (presented !== undefined) {
        const id = verify(channelId, holder, presented);
        if (id === undefined) return { kind: "bad_signature" };
        // A lapsed lease takes a seat again when one is free.
        if (!m.has(id) && m.size >= max) return { kind: "full" };
        m.set(id, now + ttlMs);
        return { kind: "renewed" };
      }
      if (m.size >= max) return { kind: "full" };
      const { id, lease } = signer.mint(channelId, holder);
      m.set(id, now + ttlMs);
      return { kind: "minted", lease };
    },
    active: (channelId, now = Date.now()) => live(channelId, now).size,
  };
}
