import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveChannelProgrammes } from "./programme-order.js";

const p = (start: number, stop: number | null, body: string) => ({ start, stop, body });
const show = (rows: readonly { start: number; stop: number | null; body: string }[]) =>
  rows.map((r) => `${r.start}-${r.stop ?? ""} ${r.body}`);

describe("resolveChannelProgrammes (tv_sort's rules)", () => {
  const cases: [string, ReturnType<typeof p>[], string[]][] = [
    [
      "a programme without stop ends where the next starts; the last keeps none",
      [p(10, null, "a"), p(30, null, "c"), p(20, null, "b")],
      ["10-20 a", "20-30 b", "30- c"],
    ],
    [
      "a stop given by the source is kept, gaps too",
      [p(10, 15, "a"), p(20, null, "b"), p(40, 50, "c")],
      ["10-15 a", "20-40 b", "40-50 c"],
    ],
    [
      "same start: the stop-less one takes the earliest stop of its start (a clump)",
      [p(10, 20, "a1"), p(10, null, "a0"), p(10, 25, "a2"), p(30, null, "b")],
      ["10-20 a1", "10-20 a0", "10-25 a2", "30- b"],
    ],
    [
      "same start, none with a stop: all end at the next start",
      [p(10, null, "x"), p(10, null, "y"), p(20, null, "z")],
      ["10-20 x", "10-20 y", "20- z"],
    ],
    [
      "exact duplicates are dropped, wherever they appear",
      [p(10, 20, "a"), p(20, 30, "b"), p(10, 20, "a"), p(10, 20, "other"), p(10, 20, "a")],
      ["10-20 a", "10-20 other", "20-30 b"],
    ],
    [
      "a stop-less duplicate of a programme with the inferred stop is dropped",
      [p(10, null, "a"), p(10, 20, "a"), p(20, null, "b")],
      ["10-20 a", "20- b"],
    ],
    [
      "overlaps are kept as the source gives them",
      [p(10, 40, "long"), p(20, 30, "inside"), p(35, null, "late")],
      ["10-40 long", "20-30 inside", "35- late"],
    ],
    ["nothing", [], []],
  ];
  for (const [name, input, expected] of cases)
    it(name, () => assert.deepEqual(show(resolveChannelProgrammes(input)), expected));

  it("keeps the stored order of programmes with equal times (the document's)", () => {
    const out = resolveChannelProgrammes([p(10, 20, "second-in-doc"), p(10, 20, "first")]);
    assert.deepEqual(show(out), ["10-20 second-in-doc", "10-20 first"]);
  });
});
