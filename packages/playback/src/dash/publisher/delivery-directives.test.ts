import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  blockingTimeoutMs,
  type DeliveryDirectives,
  decideBlockingReload,
  type PlaylistEdge,
  parseDeliveryDirectives,
} from "./delivery-directives.js";

describe("parseDeliveryDirectives (RFC 8216bis 6.2.5)", () => {
  const ok: [string, DeliveryDirectives][] = [
    ["", {}],
    ["?_HLS_msn=12", { msn: 12 }],
    ["_HLS_msn=12&_HLS_part=0", { msn: 12, part: 0 }],
    ["_HLS_msn=5&_HLS_part=2&_HLS_skip=YES", { msn: 5, part: 2, skip: "YES" }],
    ["_HLS_skip=v2", { skip: "v2" }],
    ["g=3&token=abc&_HLS_msn=0", { msn: 0 }],
  ];
  for (const [query, want] of ok) {
    it(`accepts "${query}"`, () =>
      assert.deepEqual(parseDeliveryDirectives(query), { ok: true, ...want }));
  }
  const bad: [string, RegExp][] = [
    ["_HLS_part=3", /requires _HLS_msn/],
    ["_HLS_msn=-1", /decimal integer/],
    ["_HLS_msn=1.5", /decimal integer/],
    ["_HLS_msn=", /decimal integer/],
    ["_HLS_msn=0x10", /decimal integer/],
    ["_HLS_msn=1&_HLS_part=a", /decimal integer/],
    ["_HLS_msn=99999999999999999", /decimal integer|too large/],
    ["_HLS_msn=1&_HLS_msn=2", /more than once/],
    ["_HLS_skip=yes", /YES or v2/],
  ];
  for (const [query, message] of bad) {
    it(`rejects "${query}"`, () => {
      const r = parseDeliveryDirectives(query);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.status, 400);
        assert.equal(r.error.code, "invalid_request");
        assert.match(r.error.message, message);
      }
    });
  }
  it("takes URLSearchParams too", () =>
    assert.deepEqual(parseDeliveryDirectives(new URLSearchParams({ _HLS_msn: "7" })), {
      ok: true,
      msn: 7,
    }));
});

describe("decideBlockingReload (RFC 8216bis 6.2.5.2)", () => {
  // Segments up to 100 complete, segment 101 has parts 0..1 so far, 4 parts per segment.
  const edge: PlaylistEdge = {
    lastMsn: 100,
    lastPart: { msn: 101, index: 1 },
    partCountOf: () => 4,
    partTargetSec: 0.5,
  };
  const cases: [string, DeliveryDirectives, PlaylistEdge, string][] = [
    ["no directives: respond", {}, edge, "respond"],
    ["segment already there", { msn: 100 }, edge, "respond"],
    ["old segment no longer listed: still respond", { msn: 3 }, edge, "respond"],
    ["next segment: wait", { msn: 101 }, edge, "wait"],
    ["msn = last + 2: wait", { msn: 102 }, edge, "wait"],
    ["msn = last + 3: 400", { msn: 103 }, edge, "reject"],
    ["part already listed", { msn: 101, part: 1 }, edge, "respond"],
    ["next part: wait", { msn: 101, part: 2 }, edge, "wait"],
    ["part within the advance limit (3 / 0.5 = 6)", { msn: 101, part: 7 }, edge, "wait"],
    ["part beyond the advance limit", { msn: 101, part: 8 }, edge, "reject"],
    ["part of a completed segment", { msn: 100, part: 3 }, edge, "respond"],
    [
      "index past the final part means part 0 of the next segment (listed)",
      { msn: 100, part: 4 },
      edge,
      "respond",
    ],
    ["ENDLIST ignores directives", { msn: 500 }, { ...edge, endList: true }, "respond"],
    [
      "without parts a part request waits for the segment",
      { msn: 101, part: 0 },
      { lastMsn: 100 },
      "wait",
    ],
    [
      "past final part of the newest complete segment, next has no parts yet",
      { msn: 100, part: 4 },
      { lastMsn: 100, partCountOf: () => 4 },
      "wait",
    ],
    [
      "advance limit is 3 parts when PART-TARGET >= 1 s",
      { msn: 101, part: 5 },
      { ...edge, partTargetSec: 1 },
      "reject",
    ],
  ];
  for (const [name, d, e, want] of cases) {
    it(name, () => {
      const decision = decideBlockingReload(d, e);
      assert.equal(decision.action, want);
      if (decision.action === "reject") assert.equal(decision.error.status, 400);
    });
  }
  it("blocks at most three target durations, capped at 15 s", () => {
    assert.deepEqual(
      [blockingTimeoutMs(2), blockingTimeoutMs(6), blockingTimeoutMs(4, 10_000)],
      [6000, 15000, 10000],
    );
  });
});
