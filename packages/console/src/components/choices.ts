/** One option of a select. */
export interface Choice {
  value: string;
  label: string;
}

/**
 * A select's options: the fixed ones first (`All groups`, `direct`), then one per item.
 *
 * @example
 * choicesOf([{ value: "", label: "All keys" }], keys, (k) => ({ value: k.id, label: k.name }))
 */
export function choicesOf<T>(
  fixed: readonly Choice[],
  items: readonly T[],
  choice: (item: T) => Choice,
): Choice[] {
  return [...fixed, ...items.map(choice)];
}
