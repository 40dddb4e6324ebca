import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatXmltvTime, parseXmltvTime } from "./xmltv-time.js";
import { isIanaZone, wallTimeToUtc } from "./zone-offset.js";

const iso = (sec: number | undefined) =>
  sec === undefined ? undefined : new Date(sec * 1000).toISOString();

describe("parseXmltvTime", () => {
  const cases: [string, string, string | undefined][] = [
    ["20260101200000 +0100", "UTC", "2026-01-01T19:00:00.000Z"],
    ["20260101150000 -0500", "Europe/Berlin", "2026-01-01T20:00:00.000Z"],
    ["20260101150000 +05:30", "UTC", "2026-01-01T09:30:00.000Z"],
    ["20260101150000Z", "Europe/Berlin", "2026-01-01T15:00:00.000Z"],
    ["20260101150000 UTC", "Europe/Berlin", "2026-01-01T15:00:00.000Z"],
    ["202601011500", "UTC", "2026-01-01T15:00:00.000Z"],
    ["20260101", "UTC", "2026-01-01T00:00:00.000Z"],
    // Offset-less: the source's zone, winter and summer.
    ["20260115120000", "Europe/Berlin", "2026-01-15T11:00:00.000Z"],
    ["20260715120000", "Europe/Berlin", "2026-07-15T10:00:00.000Z"],
    ["20260715120000", "America/New_York", "2026-07-15T16:00:00.000Z"],
    // DST gap: 02:30 does not exist on 29 March 2026 in Berlin → 03:30 CEST.
    ["20260329023000", "Europe/Berlin", "2026-03-29T01:30:00.000Z"],
    // DST overlap: 02:30 occurs twice on 25 October 2026 → the earlier (CEST).
    ["20261025023000", "Europe/Berlin", "2026-10-25T00:30:00.000Z"],
    ["20261025033000", "Europe/Berlin", "2026-10-25T02:30:00.000Z"],
    // New York gap (8 March 2026, 02:00→03:00) and overlap (1 November, 01:30 twice).
    ["20260308023000", "America/New_York", "2026-03-08T07:30:00.000Z"],
    ["20261101013000", "America/New_York", "2026-11-01T05:30:00.000Z"],
    // Southern hemisphere: Sydney's DST ends 5 April 2026 (03:00→02:00).
    ["20260405023000", "Australia/Sydney", "2026-04-04T15:30:00.000Z"],
    ["20260231120000", "UTC", undefined],
    ["2026010112", "UTC", "2026-01-01T12:00:00.000Z"],
    ["20261301000000", "UTC", undefined],
    ["not a time", "UTC", undefined],
    ["20260101000000 +2500", "UTC", undefined],
    // Fewer digits, with an offset and without one (the source's zone).
    ["202607151200 +0200", "UTC", "2026-07-15T10:00:00.000Z"],
    ["2026071512", "Europe/Berlin", "2026-07-15T10:00:00.000Z"],
    ["20260715", "America/New_York", "2026-07-15T04:00:00.000Z"],
    ["20260715120000 +02", "UTC", "2026-07-15T10:00:00.000Z"],
    ["20260715120000-0330", "UTC", "2026-07-15T15:30:00.000Z"],
    // Zone abbreviations (XMLTV::TZ / Date::Manip): fixed offsets whatever the date.
    ["20260715120000 BST", "America/New_York", "2026-07-15T11:00:00.000Z"],
    ["20260115120000 BST", "UTC", "2026-01-15T11:00:00.000Z"],
    ["20260115120000 GMT", "Europe/Berlin", "2026-01-15T12:00:00.000Z"],
    ["20260115120000 CET", "UTC", "2026-01-15T11:00:00.000Z"],
    ["20260715120000 CEST", "UTC", "2026-07-15T10:00:00.000Z"],
    ["20260115120000 EET", "UTC", "2026-01-15T10:00:00.000Z"],
    ["20260115120000 EST", "Europe/Berlin", "2026-01-15T17:00:00.000Z"],
    ["20260715120000 EDT", "UTC", "2026-07-15T16:00:00.000Z"],
    ["20260115120000 CST", "UTC", "2026-01-15T18:00:00.000Z"],
    ["20260115120000 MST", "UTC", "2026-01-15T19:00:00.000Z"],
    ["20260115120000 PST", "UTC", "2026-01-15T20:00:00.000Z"],
    ["20260115120000 HST", "UTC", "2026-01-15T22:00:00.000Z"],
    ["20260115120000 NST", "UTC", "2026-01-15T15:30:00.000Z"],
    ["20260115120000 IST", "UTC", "2026-01-15T06:30:00.000Z"],
    ["20260115120000 JST", "UTC", "2026-01-15T03:00:00.000Z"],
    ["20260115120000 AEDT", "UTC", "2026-01-15T01:00:00.000Z"],
    ["202601151200 est", "UTC", "2026-01-15T17:00:00.000Z"],
    ["20260115120000 XYZ", "UTC", undefined],
    ["20260115120000 BST +0100", "UTC", undefined],
  ];
  for (const [value, zone, expected] of cases) {
    it(`${value} in ${zone}`, () => assert.equal(iso(parseXmltvTime(value, zone)), expected));
  }
});

describe("zones", () => {
  it("accepts IANA names only", () => {
    for (const z of ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5"])
      assert.equal(isIanaZone(z), true, z);
    for (const z of ["Mars/Olympus", "+01:00", "", "Europe/Berlin/../x", "local"])
      assert.equal(isIanaZone(z), false, z);
  });
  it("resolves a wall time with Intl in either hemisphere", () => {
    assert.equal(
      new Date(wallTimeToUtc(Date.UTC(2026, 0, 15, 12), "Australia/Sydney")).toISOString(),
      "2026-01-15T01:00:00.000Z",
    );
  });
  it("formats output times as UTC", () => {
    assert.equal(formatXmltvTime(Date.UTC(2026, 2, 29, 1, 30) / 1000), "20260329013000 +0000");
  });
});
