import ipaddr from "ipaddr.js";

/** Why an address may not be dialled without an `allowed_hosts` exemption. */
export type RefusedRange = string;

/** `undefined`: a public unicast address; otherwise the name of the refused range. */
export type AddressVerdict =
  | { readonly public: true }
  | { readonly public: false; readonly range: RefusedRange };

const PUBLIC: AddressVerdict = Object.freeze({ public: true });
const refused = (range: string): AddressVerdict => ({ public: false, range });

/**
 * Classifies one IP address literal as the connector is about to dial it (issue 3
 * "Egress guard"): only public unicast passes. Loopback, private (RFC 1918, ULA),
 * link-local (incl. 169.254.169.254), CGNAT (RFC 6598), multicast, broadcast,
 * unspecified, documentation and other reserved ranges are refused. IPv6 forms
 * that carry an IPv4 address (mapped `::ffff:0:0/96`, translated RFC 6145, NAT64
 * RFC 6052 `64:ff9b::/96`, 6to4, IPv4-compatible `::/96`) are judged by the IPv4
 * address inside; Teredo and local-use NAT64 (RFC 8215) are refused outright.
 *
 * The input must already be normalized by the WHATWG URL parser or come from the
 * resolver or a socket; anything that is not an IP literal is refused.
 *
 * @example
 * classifyAddress("169.254.169.254") // { public: false, range: "linkLocal" }
 * classifyAddress("::ffff:7f00:1")   // { public: false, range: "loopback" }
 */
export function classifyAddress(literal: string): AddressVerdict {
  const bare = stripBrackets(literal);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(bare);
  } catch {
    return refused("invalid");
  }
  if (addr.kind() === "ipv4") return classifyV4(addr as ipaddr.IPv4);
  return classifyV6(addr as ipaddr.IPv6);
}

function classifyV4(addr: ipaddr.IPv4): AddressVerdict {
  const range = addr.range();
  return range === "unicast" ? PUBLIC : refused(range);
}

function classifyV6(addr: ipaddr.IPv6): AddressVerdict {
  const p = addr.parts;
  const range = addr.range();
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
      return classifyV4(embeddedV4(p));
    case "rfc6052":
      // Only the well-known prefix 64:ff9b::/96 embeds in the last 32 bits; the
      // local-use prefix 64:ff9b:1::/48 (RFC 8215) points into a private network.
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0
        ? classifyV4(embeddedV4(p))
        : refused("nat64LocalUse");
    case "6to4":
      return classifyV4(new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]));
    case "unicast":
      // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 2.5.5.1) reads as unicast to ipaddr.js.
      if (p.slice(0, 6).every((x) => x === 0)) return refused("ipv4Compatible");
      return PUBLIC;
    default:
      return refused(range);
  }
}

function embeddedV4(p: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
}

/** `[::1]` → `::1`; anything else unchanged. */
export function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** True when `host` (brackets allowed) is an IPv4 or IPv6 literal. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

/**
 * Canonical text of an IP literal (`::FFFF:127.0.0.1` → `::ffff:7f00:1`), or
 * undefined for a host name. Used to compare the dialled and the connected address.
 */
export function canonicalAddress(host: string): string | undefined {
  const bare = stripBrackets(host);
  if (!ipaddr.isValid(bare)) return undefined;
  return ipaddr.parse(bare).toString();
}
