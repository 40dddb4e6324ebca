/**
 * Fuzzy comparison of two normalised name keys (docs/guide.md "Matching"):
 * the Sørensen-Dice coefficient of their character bigrams, 0 to 1. Robust to
 * spacing and small spelling differences ("discoverychanel" ~ "discoverychannel"
 * is 0.97), low for an added or missing word ("bbc1" ~ "bbc1london" is 0.5).
 */
export function keySimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  // A bigram as one number (two UTF-16 units), so no substring is allocated.
  const gram = (s: string, i: number) => s.charCodeAt(i) * 65_536 + s.charCodeAt(i + 1);
  const grams = new Map<number, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const g = gram(a, i);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = gram(b, i);
    const n = grams.get(g) ?? 0;
    if (n > 0) {
      shared++;
      grams.set(g, n - 1);
    }
  }
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}

/**
 * What no spelling difference may change: the numbers in a name ("Sky Sports 1"
 * is not "Sky Sports 2", "BBC One +1" is not "BBC One"). Two keys whose digit
 * runs differ are never matched automatically by a fuzzy score.
 */
export function numbersOf(key: string): string {
  return (key.match(/\d+/g) ?? []).join(" ");
}
