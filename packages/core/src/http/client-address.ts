import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import type { AppEnv } from "./types.js";

/**
 * The client's address: the TCP peer. Forwarding headers are not trusted (the
 * gateway has no trusted-proxy list), so a client cannot pick its own rate-limit key.
 */
export function clientAddress<E extends AppEnv>(c: Context<E>): string {
  const remote = c.env?.incoming?.socket?.remoteAddress ?? "";
  return remote.startsWith("::ffff:") ? remote.slice(7) : remote;
}

export function isLoopbackAddress(address: string): boolean {
  return address === "::1" || address.startsWith("127.");
}

/**
 * The client a rate limit counts: an IPv4 address as it is, an IPv6 address
 * by its /64. One subscriber commonly holds a whole /64 (RFC 6177, RFC 7934
 * hands hosts many addresses, and privacy addresses rotate, RFC 8981), so
 * keying per /128 would give one client 2^64 fresh quotas.
 *
 * @example
 * rateLimitSubject("2001:db8:1:2::7")      // "2001:db8:1:2::/64"
 * rateLimitSubject("::ffff:192.0.2.1")     // "192.0.2.1"
 */
export function rateLimitSubject(address: string): string {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (addr.kind() === "ipv4") return addr.toString();
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = v6.parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(prefix).toString()}/64`;
}
