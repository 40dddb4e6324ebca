import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runToEnd } from "@svc/core/time-slices";
import { groupDuplicates } from "./duplicate-fallbacks.js";
import { parseM3u } from "./m3u-parser.js";

const A = "http://127.0.0.1:9";

function rolesOf(lines: string[]) {
  const parsed = parseM3u(["#EXTM3U", ...lines, ""].join("\n"));
  assert.ok(parsed.ok);
  return Object.fromEntries(runToEnd(groupDuplicates(parsed.value.entries)));
}

describe("M3U import: entries sharing a tvg-id grouped as fallback sources", () => {
  it("the first entry of a tvg-id is the primary, later ones its sources in order", () => {
    const roles = rolesOf([
      '#EXTINF:-1 tvg-id="x",X',
      `${A}/x/1.m3u8`,
      "#EXTINF:-1,No id",
      `${A}/plain.m3u8`,
      '#EXTINF:-1 tvg-id="x",X two',
      "#EXTVLCOPT:http-user-agent=Two/1",
      `${A}/x/2.m3u8`,
    ]);
    assert.deepEqual(roles, {
      3: {
        kind: "primary",
        sources: [
          { source_url: `${A}/x/2.m3u8`, upstream: "", path: "", headers: {}, user_agent: "Two/1" },
        ],
      },
      8: { kind: "fallback", primaryLine: 3, index: 0 },
    });
  });

  it("a skipped entry is never the primary; a repeated URL, another ingress or keys are not sources", () => {
    const roles = rolesOf([
      '#EXTINF:-1 tvg-id="x",Bad',
      "file:///etc/passwd",
      '#EXTINF:-1 tvg-id="x",X',
      `${A}/x/1.m3u8`,
      '#EXTINF:-1 tvg-id="x",Again',
      `${A}/x/1.m3u8`,
      '#EXTINF:-1 tvg-id="x",TS',
      `${A}/x/2.ts`,
      "#KODIPROP:inputstream.adaptive.license_type=clearkey",
      `#KODIPROP:inputstream.adaptive.license_key=${"a".repeat(32)}:${"b".repeat(32)}`,
      '#EXTINF:-1 tvg-id="x",Keyed',
      `${A}/x/3.m3u8`,
    ]);
    assert.deepEqual(roles, {
      5: { kind: "primary", sources: [] },
      9: {
        kind: "extra",
        primaryLine: 5,
        reason: 'ingress ts differs from hls of tvg-id "x" (line 5)',
      },
      13: {
        kind: "extra",
        primaryLine: 5,
        reason: 'ClearKey keys differ from those of tvg-id "x" (line 5)',
      },
    });
  });
});
