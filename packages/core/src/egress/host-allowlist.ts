import { canonicalAddress, stripBrackets } from "./address-policy.js";

/**
 * `security.allowed_hosts` (spec "Security settings"): host names or IP literals
 * exempt from the address check, each optionally with a port. Matching is exact on
 * the host as the WHATWG URL parser normalizes it (lowercase, no trailing dot; IP
 * literals in canonical form), never a suffix or a pattern. Channel and upstream
 * declarations never add to it.
 *
 * - `host` (or `[v6]`): every port of that host. A playlist served from it may
 *   name any port on it, and the gateway will dial it.
 * - `host:port` (or `[v6]:port`): that port only; every other port is refused
 *   before any connection is opened, so a refusal says nothing about whether the
 *   port is open.
 */
export interface HostAllowlist {
  /** `port` is the port that will be dialled (the scheme's default when the URL has none). */
  has(hostname: string, port?: number): boolean;
}

/** One parsed entry: the normalized host and its port, or undefined for every port. */
export interface AllowedHost {
  readonly host: string;
  readonly port: number | undefined;
}

/**
 * Reads `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal; undefined
 * when the port is not 1..65535.
 * @example parseAllowedHost("127.0.0.1:8080") // { host: "127.0.0.1", port: 8080 }
 */
export function parseAllowedHost(entry: string): AllowedHost | undefined {
  const text = entry.trim().toLowerCase();
  let host = text;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2];
  } else if (text.indexOf(":") !== -1 && text.indexOf(":") === text.lastIndexOf(":")) {
    // One colon: host:port. Several: a bare IPv6 literal, which needs brackets for a port.
    [host, portText] = text.split(":") as [string, string];
  }
  if (host === "") return undefined;
  let port: number | undefined;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText)) return undefined;
    port = Number(portText);
    if (port < 1 || port > 65535) return undefined;
  }
  return { host: normalizeHost(host), port };
}

export function createHostAllowlist(entries: readonly string[]): HostAllowlist {
  /** host → allowed ports; "any" for a bare host. */
  const table = new Map<string, Set<number> | "any">();
  for (const entry of entries) {
    const parsed = parseAllowedHost(entry);
    if (parsed === undefined) continue;
    const have = table.get(parsed.host);
    if (parsed.port === undefined || have === "any") table.set(parsed.host, "any");
    else table.set(parsed.host, new Set([...(have ?? []), parsed.port]));
  }
  return {
    has(hostname, port) {
      const ports = table.get(normalizeHost(hostname));
      if (ports === undefined) return false;
      return ports === "any" || (port !== undefined && ports.has(port));
    },
  };
}

function normalizeHost(host: string): string {
  const bare = stripBrackets(host.trim().toLowerCase()).replace(/\.$/, "");
  return canonicalAddress(bare) ?? bare;
}

/** The port a URL dials: its own, or the scheme's default (80, 443). */
export function dialPort(url: URL): number {
  return url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}
