import type { ProgrammeRow } from "./guide-data.js";

/** `tv_sort`'s order: start, then a programme without stop first, then stop. */
const byTime = (a: ProgrammeRow, b: ProgrammeRow) =>
  a.start - b.start ||
  (a.stop === null ? (b.stop === null ? 0 : -1) : b.stop === null ? 1 : a.stop - b.stop);

/**
 * The programmes of one guide channel of one source as `tv_sort` leaves them
 * (xmltv's canonical form, docs/guide.md "Duplicates and overlaps"): sorted by
 * start then stop (equal times in the stored order, which is the document's;
 * tv_sort orders a clump by `clumpidx`, which sources write in document
 * order); a programme without `stop` ends where the next one
 * starts (xmltv.dtd: stop is optional), or, when another programme starts with
 * it and has a stop, at the earliest such stop; the last one keeps no stop. A
 * programme equal to another (start, stop and content) is dropped. Overlaps
 * are kept as the source gives them.
 *
 * @example
 * resolveChannelProgrammes([{ start: 10, stop: null, body: "a" }, { start: 20, stop: null, body: "b" }]);
 * // [{ start: 10, stop: 20, body: "a" }, { start: 20, stop: null, body: "b" }]
 */
export function resolveChannelProgrammes(rows: readonly ProgrammeRow[]): ProgrammeRow[] {
  // Equal times keep the stored order (the document's), also after stops are
  // filled in: a clump (`clumpidx` 0/2, 1/2) stays in its order.
  const order = new Map(rows.map((r, i) => [r, i]));
  const stable = (a: ProgrammeRow, b: ProgrammeRow) =>
    byTime(a, b) || order.get(a)! - order.get(b)!;
  const sorted = [...rows].sort(stable);
  const filled: ProgrammeRow[] = [];
  for (let i = 0; i < sorted.length; ) {
    const start = sorted[i]!.start;
    let end = i;
    while (end < sorted.length && sorted[end]!.start === start) end++;
    // A programme of this start with a stop (the earliest: stop-less ones sort first).
    const stopOfGroup = sorted.slice(i, end).find((p) => p.stop !== null)?.stop ?? null;
    const nextStart = end < sorted.length ? sorted[end]!.start : null;
    for (; i < end; i++) {
      const p = sorted[i]!;
      if (p.stop !== null) filled.push(p);
      else {
        const withStop = { ...p, stop: stopOfGroup ?? nextStart };
        order.set(withStop, order.get(p)!);
        filled.push(withStop);
      }
    }
  }
  filled.sort(stable);
  const out: ProgrammeRow[] = [];
  let bodies = new Set<string>();
  for (let i = 0; i < filled.length; i++) {
    const p = filled[i]!;
    const prev = filled[i - 1];
    if (prev === undefined || prev.start !== p.start || prev.stop !== p.stop) bodies = new Set();
    if (bodies.has(p.body)) continue;
    bodies.add(p.body);
    out.push(p);
  }
  return out;
}
