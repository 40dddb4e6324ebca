/**
 * A stable sort written as steps for `runInSlices`: runs of {@link RUN} items are sorted
 * natively, then merged bottom-up, yielding every {@link RUN} items. One native sort of a
 * 165,000-channel catalog holds the event loop for over 100 ms (issue 30 item 1).
 */
const RUN = 1024;

export function* sortedInSteps<T>(
  items: readonly T[],
  compare: (a: T, b: T) => number,
): Generator<void, T[]> {
  const n = items.length;
  let src: T[] = [];
  for (let lo = 0; lo < n; lo += RUN) {
    src.push(...items.slice(lo, lo + RUN).sort(compare));
    yield;
  }
  let dst: T[] = new Array<T>(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k++) {
        // Ties take the left run first: the merge keeps the order of equal items.
        dst[k] =
          j >= hi || (i < mid && compare(src[i] as T, src[j] as T) <= 0)
            ? (src[i++] as T)
            : (src[j++] as T);
        if ((k - lo) % RUN === RUN - 1) yield;
      }
    }
    [src, dst] = [dst, src];
  }
  return src;
}
