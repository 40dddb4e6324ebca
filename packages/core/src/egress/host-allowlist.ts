import { canonicalAddress, stripBrackets } from "./address-policy.js";

/**
 * `security.allowed_hosts` (spec "Security settings"): host names or IP literals
 * exempt from the address check. Matching is exact on the host as the WHATWG URL
 * parser normalizes it (lowercase, no trailing dot; IP literals in canonical
 * form), never a suffix or a pattern. Channel and upstream declarations never
 * add to it.
 */
export interface HostAllowlist {
  has(hostname: string): boolean;
}

export function createHostAllowlist(entries: readonly string[]): HostAllowlist {
  const set = new Set(entries.map(normalizeHost));
  return { has: (hostname) => set.size > 0 && set.has(normalizeHost(hostname)) };
}

function normalizeHost(host: string): string {
  const bare = stripBrackets(host.trim().toLowerCase()).replace(/\.$/, "");
  return canonicalAddress(bare) ?? bare;
}
