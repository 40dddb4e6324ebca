import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createSequenceState,
  mergeRefresh,
  type SequenceState,
  type TrackableSegment,
} from "./sequence-tracker.js";

interface Seg extends TrackableSegment {
  readonly label: string;
}
const seg = (periodId: string, periodStart: number, time: number, duration = 2): Seg => ({
  periodId,
  periodStart,
  time: BigInt(time),
  duration: BigInt(duration),
  timescale: 1,
  label: `${periodId}@${time}`,
});
const view = (s: SequenceState<Seg>): string =>
  s.window.map((w) => `${w.discontinuity ? "|" : ""}${w.msn}:${w.segment.label}`).join(" ");

describe("mergeRefresh: Media Sequence Numbers never go backwards", () => {
  it("appends only new segments across overlapping refreshes", () => {
    let state = createSequenceState<Seg>(100);
    state = mergeRefresh(state, [seg("a", 0, 0), seg("a", 0, 2), seg("a", 0, 4)], {
      maxWindow: 10,
    }).state;
    const second = mergeRefresh(state, [seg("a", 0, 2), seg("a", 0, 4), seg("a", 0, 6)], {
      maxWindow: 10,
    });
    assert.deepEqual(
      second.added.map((a) => a.msn),
      [103],
    );
    assert.equal(view(second.state), "100:a@0 101:a@2 102:a@4 103:a@6");
  });
  it("ignores a stale refresh that lists only old segments (CDN served an older MPD)", () => {
    let state = createSequenceState<Seg>();
    state = mergeRefresh(state, [seg("a", 0, 10), seg("a", 0, 12)], { maxWindow: 10 }).state;
    const stale = mergeRefresh(state, [seg("a", 0, 6), seg("a", 0, 8), seg("a", 0, 10)], {
      maxWindow: 10,
    });
    assert.deepEqual(stale.added, []);
    assert.equal(stale.state.nextMsn, 2);
  });
  it("a Period change is a discontinuity, an earlier Period is ignored", () => {
    let state = createSequenceState<Seg>();
    state = mergeRefresh(state, [seg("a", 0, 0), seg("a", 0, 2)], { maxWindow: 10 }).state;
    state = mergeRefresh(state, [seg("b", 4, 900), seg("a", 0, 2), seg("b", 4, 902)], {
      maxWindow: 10,
    }).state;
    state = mergeRefresh(state, [seg("a", 0, 4)], { maxWindow: 10 }).state;
    assert.equal(view(state), "0:a@0 1:a@2 |2:b@900 3:b@902");
  });
  it("a gap in the timeline is a discontinuity; a tiny one is tolerated", () => {
    let state = createSequenceState<Seg>();
    state = mergeRefresh(
      state,
      [seg("a", 0, 0), seg("a", 0, 2), seg("a", 0, 10), seg("a", 0, 12, 2)],
      { maxWindow: 10 },
    ).state;
    assert.equal(view(state), "0:a@0 1:a@2 |2:a@10 3:a@12");
    const tolerant = mergeRefresh(createSequenceState<Seg>(), [seg("a", 0, 0), seg("a", 0, 3)], {
      maxWindow: 10,
      gapToleranceSec: 1.5,
    });
    assert.equal(view(tolerant.state), "0:a@0 1:a@3");
  });
  it("sliding the window counts discontinuities that leave it", () => {
    let state = createSequenceState<Seg>();
    state = mergeRefresh(state, [seg("a", 0, 0), seg("b", 2, 0), seg("b", 2, 2), seg("c", 6, 0)], {
      maxWindow: 2,
    }).state;
    assert.equal(view(state), "2:b@2 |3:c@0");
    assert.equal(state.discontinuitySequence, 1);
    state = mergeRefresh(state, [seg("c", 6, 2), seg("c", 6, 4)], { maxWindow: 2 }).state;
    assert.equal(view(state), "4:c@2 5:c@4");
    assert.equal(state.discontinuitySequence, 2);
  });
  it("sorts an unordered listing", () => {
    const r = mergeRefresh(
      createSequenceState<Seg>(),
      [seg("a", 0, 4), seg("a", 0, 0), seg("a", 0, 2)],
      { maxWindow: 10 },
    );
    assert.equal(view(r.state), "0:a@0 1:a@2 2:a@4");
  });
});
