import type { EgressProxy } from "../../api/wire.js";

/** The choices of a route select: the fixed ones given, then each proxy profile by its name. */
export function routeOptions(
  fixed: readonly { value: string; label: string }[],
  proxies: readonly EgressProxy[],
): { value: string; label: string }[] {
  return [...fixed, ...proxies.map((p) => ({ value: p.id, label: p.name || p.id }))];
}
