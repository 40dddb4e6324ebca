import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseMpd } from "../../dash/manifest/mpd-parser.js";
import {
  frozenBeforeOpenMs,
  stallLimitMs,
  UNSYNCED_CLOCK_SLACK_MS,
} from "./dash-failback-probe.js";

const NOW = Date.parse("2026-11-28T12:00:00Z");

/**
 * A live MPD whose SegmentTimeline lists ten 2 s segments from its availabilityStartTime,
 * `startedSecAgo` before NOW: its newest segment became available `startedSecAgo - 20` s ago.
 */
function liveMpd(startedSecAgo: number, utcTiming: boolean) {
  const ast = new Date(NOW - startedSecAgo * 1000).toISOString();
  const xml = `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" profiles="urn:mpeg:dash:profile:isoff-live:2011"
  availabilityStartTime="${ast}" minimumUpdatePeriod="PT2S" timeShiftBufferDepth="PT3600S" minBufferTime="PT2S">
  <Period id="0" start="PT0S">
    <AdaptationSet mimeType="video/mp4" segmentAlignment="true">
      <Representation id="v0" bandwidth="800000" codecs="avc1.64001f" width="640" height="360">
        <SegmentTemplate timescale="1000" initialization="init-$RepresentationID$.m4s" media="$RepresentationID$-$Time$.m4s">
          <SegmentTimeline><S t="0" d="2000" r="9"/></SegmentTimeline>
        </SegmentTemplate>
      </Representation>
    </AdaptationSet>
  </Period>
  ${utcTiming ? '<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-iso:2014" value="http://127.0.0.1:9/time"/>' : ""}
</MPD>`;
  const r = parseMpd(xml, { url: "http://127.0.0.1:9/live.mpd" });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  return r.value;
}

describe("frozenBeforeOpenMs (a DASH source frozen before the relay opened it)", () => {
  it("the stall limit is three segment durations or minimumUpdatePeriods", () => {
    assert.equal(stallLimitMs(liveMpd(20, true), 2), 6_000);
  });

  it("a live MPD whose newest segment just became available is not frozen, with or without UTCTiming", () => {
    assert.equal(frozenBeforeOpenMs(liveMpd(21, true), NOW), undefined);
    assert.equal(frozenBeforeOpenMs(liveMpd(21, false), NOW), undefined);
  });

  it("with UTCTiming, newest segment older than the stall limit: frozen, with its age", () => {
    // Newest segment available 30 s ago (its end, 20 s after the start 50 s ago).
    assert.equal(frozenBeforeOpenMs(liveMpd(50, true), NOW), 30_000);
  });

  it("without UTCTiming the clocks may differ: 30 s is within the slack, 10 minutes is not", () => {
    assert.equal(frozenBeforeOpenMs(liveMpd(50, false), NOW), undefined);
    const age = frozenBeforeOpenMs(liveMpd(620, false), NOW);
    assert.equal(age, 600_000);
    assert.ok(600_000 > UNSYNCED_CLOCK_SLACK_MS + 6_000);
  });
});
