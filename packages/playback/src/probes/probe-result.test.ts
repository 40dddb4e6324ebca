import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspectMpdText } from "../dash/inspection/native-inspection.js";
import { urlForReport } from "../dash/inspection/url-for-report.js";
import {
  dashProbeFailure,
  dashProbeKeysProblem,
  dashProbeResult,
  elapsedMs,
  httpProbeFailure,
  httpProbeResult,
  withProxyId,
} from "./probe-result.js";

describe("urlForReport", () => {
  const rows: [string, string][] = [
    ["https://user:pw@cdn.example/live/a.mpd?token=x#t=5", "https://cdn.example/live/a.mpd"],
    ["http://127.0.0.1:8080/x/index.m3u8?sig=abc", "http://127.0.0.1:8080/x/index.m3u8"],
    ["https://cdn.example", "https://cdn.example/"],
    ["https://cdn.example/a%20b/c.mpd", "https://cdn.example/a%20b/c.mpd"],
    ["https://:pw@cdn.example/p", "https://cdn.example/p"],
    ["not a url", ""],
    ["data:text/plain,secret", ""],
    ["javascript:alert(1)", ""],
  ];
  for (const [input, expected] of rows)
    it(input, () => assert.equal(urlForReport(input), expected));
});

describe("probe result builders", () => {
  it("non-DASH: exact shape, ok only for 2xx, URL reduced", () => {
    assert.deepEqual(
      httpProbeResult({
        status: 200,
        contentType: "application/vnd.apple.mpegurl",
        finalUrl: "https://u:p@cdn.example/a.m3u8?token=1",
        durMs: 41.6,
      }),
      {
        ok: true,
        status: 200,
        content_type: "application/vnd.apple.mpegurl",
        final_url: "https://cdn.example/a.m3u8",
        dur_ms: 42,
      },
    );
    const notFound = httpProbeResult({
      status: 404,
      contentType: null,
      finalUrl: "https://cdn.example/a",
      durMs: 3,
    });
    assert.deepEqual([notFound.ok, notFound.content_type], [false, ""]);
    assert.equal(
      httpProbeResult({ status: 302, contentType: "", finalUrl: "", durMs: 0 }).ok,
      false,
    );
  });
  it("non-DASH failure and the source-probe proxy_id", () => {
    const r = withProxyId(
      httpProbeFailure({
        url: "https://cdn.example/a.m3u8?token=1",
        durMs: 5000,
        reason: "timeout",
      }),
      "direct",
    );
    assert.deepEqual(r, {
      ok: false,
      status: 0,
      content_type: "",
      final_url: "https://cdn.example/a.m3u8",
      dur_ms: 5000,
      error: "timeout",
      proxy_id: "direct",
    });
  });
  it("DASH: {ok, dur_ms, inspection}", () => {
    const inspection = inspectMpdText("<MPD>", "https://cdn.example/a.mpd");
    assert.deepEqual(dashProbeResult({ durMs: 12, inspection }), {
      ok: true,
      dur_ms: 12,
      inspection,
    });
    assert.deepEqual(Object.keys(dashProbeResult({ durMs: 12, inspection })), [
      "ok",
      "dur_ms",
      "inspection",
    ]);
    assert.deepEqual(dashProbeFailure({ durMs: 7, reason: "upstream answered 404" }), {
      ok: false,
      dur_ms: 7,
      inspection: null,
      error: "upstream answered 404",
    });
  });
  it("DASH probes need global media keys", () => {
    assert.match(dashProbeKeysProblem({}) ?? "", /media\.keys/);
    assert.equal(dashProbeKeysProblem({ a: "b" }), undefined);
  });
  it("elapsedMs is a non-negative integer", () => {
    assert.equal(elapsedMs(100, 150.4), 50);
    assert.equal(elapsedMs(100, 90), 0);
  });
});
