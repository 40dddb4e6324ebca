/**
 * The channel ids one import hands out: `id`, else `id-2`, `id-3`… Each base id remembers the
 * next suffix to try, so 20,000 entries deriving the same id (one host, no titles) cost one
 * lookup each, not a walk over every suffix used before (quadratic: issue 30 item 1).
 */
export interface UniqueIds {
  /** Whether this import already used `id`. */
  used(id: string): boolean;
  /** Marks `id` as used by this import. */
  take(id: string): void;
  /** The first of `base`, `base-2`, … this import has not used (the catalog may hold it). */
  peek(base: string): string;
  /** The first of `base`, `base-2`, … neither this import nor the catalog holds. */
  fresh(base: string): string;
}

export function createUniqueIds(inCatalog: (id: string) => boolean): UniqueIds {
  const used = new Set<string>();
  // Candidates only ever become taken during an import (ids are only added), so a suffix
  // passed over once never needs to be tried again: one cursor per base and per question.
  const peekFrom = new Map<string, number>();
  const freshFrom = new Map<string, number>();
  const first = (base: string, cursors: Map<string, number>, taken: (id: string) => boolean) => {
    if (!taken(base)) return base;
    let i = cursors.get(base) ?? 2;
    while (taken(`${base}-${i}`)) i++;
    cursors.set(base, i);
    return `${base}-${i}`;
  };
  return {
    used: (id) => used.has(id),
    take: (id) => {
      used.add(id);
    },
    peek: (base) => first(base, peekFrom, (id) => used.has(id)),
    fresh: (base) => first(base, freshFrom, (id) => used.has(id) || inCatalog(id)),
  };
}
