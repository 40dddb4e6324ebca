import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mergeProgrammes } from "./epg-writer.js";

const p = (start: number, stop: number | null, body = `${start}`) => ({ start, stop, body });

describe("mergeProgrammes", () => {
  it("keeps the first source whole and fills only its holes from the others", () => {
    const a = [p(100, 200), p(200, 300), p(500, 600)];
    const b = [
      p(150, 190, "dup"),
      p(300, 400, "fill"),
      p(400, 550, "overlap"),
      p(600, 700, "after"),
    ];
    assert.deepEqual(
      mergeProgrammes([a, b]).map((x) => x.body),
      ["100", "200", "fill", "500", "after"],
    );
  });
  it("treats a programme without stop as an instant", () => {
    assert.deepEqual(
      mergeProgrammes([[p(100, null)], [p(100, null, "same"), p(101, null, "next")]]).map(
        (x) => x.body,
      ),
      ["100", "next"],
    );
  });
  it("handles no lists and one list", () => {
    assert.deepEqual(mergeProgrammes([]), []);
    assert.deepEqual(mergeProgrammes([[p(1, 2)]]), [p(1, 2)]);
  });
});
