import type { EgressProxy } from "../../api/wire.js";
import { type Choice, choicesOf } from "../../components/choices.js";

/** The choices of a route select: the fixed ones given, then each proxy profile by its name. */
export function routeOptions(fixed: readonly Choice[], proxies: readonly EgressProxy[]): Choice[] {
  return choicesOf(fixed, proxies, (p) => ({ value: p.id, label: p.name || p.id }));
}
