import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { UtcTiming } from "./mpd-model.js";
import {
  classifyUtcTimingScheme,
  clockOffsetFromUtcTiming,
  type UtcTimingObservation,
  utcTimingUrls,
} from "./utc-timing.js";

const timing = (scheme: string, value = ""): UtcTiming => ({
  schemeIdUri: scheme,
  scheme: classifyUtcTimingScheme(scheme),
  value,
});
const T = Date.UTC(2024, 0, 1, 12);

describe("clockOffsetFromUtcTiming", () => {
  const cases: [string, UtcTiming, UtcTimingObservation, number][] = [
    [
      "http-iso, server 2 s ahead, RTT compensated",
      timing("urn:mpeg:dash:utc:http-iso:2014", "https://t/"),
      { body: "2024-01-01T12:00:02.100Z\n", requestSentMs: T, responseReceivedMs: T + 200 },
      2000,
    ],
    [
      "http-xsdate, server behind",
      timing("urn:mpeg:dash:utc:http-xsdate:2014"),
      { body: "2024-01-01T11:59:59Z", requestSentMs: T, responseReceivedMs: T },
      -1000,
    ],
    [
      "http-head uses the Date header plus half a second",
      timing("urn:mpeg:dash:utc:http-head:2014"),
      { dateHeader: "Mon, 01 Jan 2024 12:00:05 GMT", requestSentMs: T, responseReceivedMs: T },
      5500,
    ],
    [
      "direct compares with the MPD arrival",
      timing("urn:mpeg:dash:utc:direct:2014", "2024-01-01T12:00:03Z"),
      { requestSentMs: T - 1000, responseReceivedMs: T },
      3000,
    ],
    [
      "2012 spelling is accepted",
      timing("urn:mpeg:dash:utc:http-iso:2012"),
      { body: "2024-01-01T12:00:00Z", requestSentMs: T, responseReceivedMs: T },
      0,
    ],
  ];
  for (const [name, t, seen, want] of cases) {
    it(name, () => {
      const r = clockOffsetFromUtcTiming(t, seen);
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.value, want);
    });
  }
  const failures: [string, UtcTiming, UtcTimingObservation][] = [
    [
      "ntp cannot be resolved",
      timing("urn:mpeg:dash:utc:ntp:2014", "pool.ntp.org"),
      { requestSentMs: T, responseReceivedMs: T },
    ],
    [
      "garbage body",
      timing("urn:mpeg:dash:utc:http-iso:2014"),
      { body: "not a time", requestSentMs: T, responseReceivedMs: T },
    ],
    [
      "head without Date",
      timing("urn:mpeg:dash:utc:http-head:2014"),
      { requestSentMs: T, responseReceivedMs: T },
    ],
  ];
  for (const [name, t, seen] of failures) {
    it(name, () => {
      const r = clockOffsetFromUtcTiming(t, seen);
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.element, "UTCTiming");
    });
  }
});

describe("utcTimingUrls", () => {
  it("splits alternatives and resolves them against the MPD URL", () => {
    assert.deepEqual(
      utcTimingUrls(
        timing("urn:mpeg:dash:utc:http-xsdate:2014", "/time  https://b.example/t"),
        "https://a.example/x/m.mpd",
      ),
      ["https://a.example/time", "https://b.example/t"],
    );
  });
  it("direct has no URL", () =>
    assert.deepEqual(
      utcTimingUrls(timing("urn:mpeg:dash:utc:direct:2014", "2024-01-01T00:00:00Z"), "https://a/"),
      [],
    ));
});
