import { isIP } from "node:net";

/**
 * Requests one client may have parked at once on the local ingress: start waits
 * (up to 30 s) and LL-HLS blocking reloads and preload-hinted parts (up to 15 s).
 * A player needs about two per rendition (its playlist reload and the hinted part);
 * 32 leaves room for several players behind one address.
 */
export const MAX_PARKED_PER_CLIENT = 32;

/** Counts parked requests per client; `enter` fails once a client holds `max`. */
export interface ParkingLimit {
  /** A release function, or undefined when the client is at its limit. */
  enter(client: string): (() => void) | undefined;
  /** Requests parked now (all clients). */
  parked(): number;
}

export function createParkingLimit(max = MAX_PARKED_PER_CLIENT): ParkingLimit {
  const held = new Map<string, number>();
  let total = 0;
  return {
    enter(client) {
      const key = clientKey(client);
      const n = held.get(key) ?? 0;
      if (n >= max) return undefined;
      held.set(key, n + 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (held.get(key) ?? 1) - 1;
        if (left <= 0) held.delete(key);
        else held.set(key, left);
      };
    },
    parked: () => total,
  };
}

/**
 * IPv4 clients by address, IPv6 clients by their /64: one host is handed a whole /64
 * (RFC 6177) and could otherwise rotate addresses past the limit.
 */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
