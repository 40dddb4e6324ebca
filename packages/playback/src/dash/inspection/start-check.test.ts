import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createEgress } from "@svc/core/egress";
import { parseMpd } from "../manifest/mpd-parser.js";
import { checkSessionStart, fetchTargets } from "./start-check.js";

// The guard's own check runs on IP literals here: nothing is resolved or connected to.
const egress = createEgress({
  allowedHosts: ["127.0.0.1:8080"],
  timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
});
after(() => egress.close());

const MPD_URL = "http://127.0.0.1:8080/live/x.mpd";
const TEMPLATE =
  '<SegmentTemplate timescale="1000" duration="2000" media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4"/>';

function mpd(o: { type?: string; head?: string; set?: string; template?: string } = {}) {
  const text = `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="${o.type ?? "dynamic"}"
    availabilityStartTime="2026-01-01T00:00:00Z" mediaPresentationDuration="PT60S">
    ${o.head ?? ""}
    <Period id="p0" start="PT0S">
      <AdaptationSet ${o.set ?? 'contentType="video" mimeType="video/mp4" codecs="avc1.64001f"'}>
        ${o.template ?? TEMPLATE}
        <Representation id="v" bandwidth="500000" width="640" height="360"/>
      </AdaptationSet>
    </Period>
  </MPD>`;
  const parsed = parseMpd(text, { url: MPD_URL });
  if (!parsed.ok) throw new Error(`${parsed.error.element}: ${parsed.error.message}`);
  return parsed.value;
}

describe("fetchTargets", () => {
  it("lists the dynamic MPD's Location, then init and first media URL per Representation", () => {
    const m = mpd({ head: "<Location>http://127.0.0.3/next.mpd</Location>" });
    assert.deepEqual(fetchTargets(m, m.periods[0]!.adaptationSets[0]!.representations), [
      "http://127.0.0.3/next.mpd",
      "http://127.0.0.1:8080/live/v/init.mp4",
      "http://127.0.0.1:8080/live/v/1.m4s",
    ]);
  });
  it("leaves out a static MPD's Location (never refreshed)", () => {
    const m = mpd({ type: "static", head: "<Location>http://127.0.0.3/next.mpd</Location>" });
    assert.equal(fetchTargets(m, m.periods[0]!.adaptationSets[0]!.representations).length, 2);
  });
});

describe("checkSessionStart", () => {
  const cases: [string, Parameters<typeof mpd>[0], string | undefined, RegExp | undefined][] = [
    ["an allowed source", {}, undefined, undefined],
    [
      "a BaseURL on a refused address",
      { head: "<BaseURL>http://127.0.0.2:9/media/</BaseURL>" },
      "refused",
      /the egress guard refused 127\.0\.0\.2:9 \(target address is loopback\)/,
    ],
    [
      "a SegmentTemplate naming a refused address",
      {
        template:
          '<SegmentTemplate timescale="1000" duration="2000" media="http://[::1]:9/$Number$.m4s" initialization="i.mp4"/>',
      },
      "refused",
      /the egress guard refused \[::1\]:9/,
    ],
    [
      "an allowed host on another port",
      { head: "<BaseURL>http://127.0.0.1:8081/</BaseURL>" },
      "refused",
      /127\.0\.0\.1:8081/,
    ],
    [
      "a dynamic MPD's Location on a refused address",
      { head: "<Location>http://127.0.0.2/next.mpd</Location>" },
      "refused",
      /127\.0\.0\.2/,
    ],
    [
      "a static MPD's Location on a refused address (never fetched)",
      { type: "static", head: "<Location>http://127.0.0.2/next.mpd</Location>" },
      undefined,
      undefined,
    ],
    [
      "subtitles only",
      { set: 'contentType="text" mimeType="application/mp4" codecs="stpp"' },
      "unplayable",
      /Period p0 has no video or audio Representation/,
    ],
    [
      "a set that declares no type (left to the ffmpeg fallback)",
      { set: "" },
      undefined,
      undefined,
    ],
  ];
  for (const [name, input, cause, message] of cases) {
    it(`${cause ?? "accepts"}: ${name}`, async () => {
      const r = await checkSessionStart(egress, mpd(input), Date.now(), {});
      if (cause === undefined) return assert.deepEqual(r, { ok: true });
      assert.equal(r.ok, false);
      assert.ok(!r.ok);
      assert.equal(r.cause, cause);
      assert.match(r.message, message!);
    });
  }
});
