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
 * credential, or forged; seats are held in memory per process.
 */
export const LEASE_TTL_MS = 30_000;

export type LeaseOutcome =
  | { readonly kind: "renewed" }
  | { readonly kind: "minted"; readonly lease: string }
  | { readonly kind: "bad_signature" }
  | { readonly kind: "full" };

export interface ViewerLeases {
  /**
   * Admits a request for `channelId` limited to `max` viewers. `holder` names the
   * credential of the request (the same string for the same credential); `presented`
   * is the request's `viewer` value (undefined: mint one when a seat is free).
   */
  admit(
    channelId: string,
    holder: string,
    max: number,
    presented: string | undefined,
    now?: number,
  ): LeaseOutcome;
  active(channelId: string, now?: number): number;
}

/** The shape of a lease; anything else in `viewer=` is refused before any HMAC. */
export const LEASE_SHAPE = /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

export function createViewerLeases(key: Buffer, ttlMs = LEASE_TTL_MS): ViewerLeases {
  /** channel → lease id → expiry (ms). */
  const seats = new Map<string, Map<string, number>>();
  const mac = (channelId: string, holder: string, id: string) =>
    createHmac("sha256", key).update(`lease\0${channelId}\0${holder}\0${id}`).digest();

  const verify = (channelId: string, holder: string, presented: string): string | undefined => {
    const m = LEASE_SHAPE.exec(presented);
    if (m === null) return undefined;
    // Compare the text, not the decoded bytes: base64url has several spellings of
    // the same bytes (stray low bits in the last character), and only ours is valid.
    const given = Buffer.from(m[2]!, "latin1");
    const expected = Buffer.from(mac(channelId, holder, m[1]!).toString("base64url"), "latin1");
    return given.length === expected.length && timingSafeEqual(given, expected) ? m[1] : undefined;
  };
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
      const id = randomBytes(12).toString("base64url");
      m.set(id, now + ttlMs);
      return {
        kind: "minted",
        lease: `${id}.${mac(channelId, holder, id).toString("base64url")}`,
      };
    },
    active: (channelId, now = Date.now()) => live(channelId, now).size,
  };
}
