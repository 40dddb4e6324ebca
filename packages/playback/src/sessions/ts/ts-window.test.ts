import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TsSegment } from "../../ts/segment-cutter.js";
import { parseTsLiveFile, TsWindow } from "./ts-window.js";

const seg = (durationSec: number, discontinuity = false): TsSegment => ({
  bytes: Buffer.alloc(376, 0x47),
  durationSec,
  startPts: 0,
  discontinuity,
  independent: true,
});

/** The playlist with the marks made visible. */
const text = (w: TsWindow) => w.render()!.replaceAll("\u0002", "P/").replaceAll("\u0001", "&q");

describe("TsWindow", () => {
  it("renders nothing before the first segment", () =>
    assert.equal(
      new TsWindow({ generation: "g1", maxSegments: 3, targetSec: 2 }).render(),
      undefined,
    ));

  it("lists the window, counts discontinuities that left it, and keeps numbering", () => {
    const w = new TsWindow({ generation: "g1", maxSegments: 2, targetSec: 2 });
    w.add(seg(2));
    w.add(seg(2, true));
    w.add(seg(2.04));
    assert.equal(
      text(w),
      [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        "#EXT-X-TARGETDURATION:2",
        "#EXT-X-MEDIA-SEQUENCE:1",
        "#EXT-X-DISCONTINUITY-SEQUENCE:0",
        "#EXT-X-DISCONTINUITY",
        "#EXTINF:2.000,",
        "P/live/s-1.ts?g=g1&q",
        "#EXTINF:2.040,",
        "P/live/s-2.ts?g=g1&q",
        "",
      ].join("\n"),
    );
    w.add(seg(2));
    assert.match(text(w), /#EXT-X-MEDIA-SEQUENCE:2\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n#EXTINF/);
  });

  it("renders the master playlist: peak BANDWIDTH, CODECS and RESOLUTION when known", () => {
    const w = new TsWindow({ generation: "g1", maxSegments: 3, targetSec: 2 });
    assert.equal(w.renderMaster({}), undefined);
    w.add(seg(2)); // 376 bytes in 2 s: 1504 bit/s
    w.add(seg(1)); // 3008 bit/s
    const master = w
      .renderMaster({ codecs: "avc1.64001f,mp4a.40.2", width: 1280, height: 720 })!
      .replaceAll("\u0002", "P/")
      .replaceAll("\u0001", "&q");
    assert.equal(
      master,
      [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        '#EXT-X-STREAM-INF:BANDWIDTH=3008,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720',
        "P/live/media.m3u8?g=g1&q",
        "",
      ].join("\n"),
    );
    assert.doesNotMatch(w.renderMaster({})!, /CODECS|RESOLUTION/);
  });

  it("raises TARGETDURATION for a longer GOP rather than publish an EXTINF above it", () => {
    const w = new TsWindow({ generation: "g", maxSegments: 5, targetSec: 2 });
    w.add(seg(4.2));
    w.add(seg(2));
    assert.match(text(w), /#EXT-X-TARGETDURATION:4\n/);
  });

  it("a new generation goes on from the session's numbering, with a discontinuity", () => {
    const continuity = { nextMsn: 0, discontinuitySequence: 0 };
    const a = new TsWindow({ generation: "a", maxSegments: 2, targetSec: 2, continuity });
    a.add(seg(2));
    a.add(seg(2));
    a.add(seg(2));
    const b = new TsWindow({ generation: "b", maxSegments: 2, targetSec: 2, continuity });
    b.add(seg(2));
    assert.match(
      text(b),
      /#EXT-X-MEDIA-SEQUENCE:3\n#EXT-X-DISCONTINUITY-SEQUENCE:0\n#EXT-X-DISCONTINUITY\n/,
    );
  });

  it("finds segments by number", () => {
    const w = new TsWindow({ generation: "g", maxSegments: 1, targetSec: 2 });
    w.add(seg(2));
    w.add(seg(2));
    assert.deepEqual(
      [w.segmentFile(0).kind, w.segmentFile(1).kind, w.segmentFile(2).kind],
      ["gone", "bytes", "future"],
    );
  });

  const names: [string, number | undefined][] = [
    ["s-0.ts", 0],
    ["s-123.ts", 123],
    ["s-.ts", undefined],
    ["s-1.ts.tmp", undefined],
    ["v0.m3u8", undefined],
    ["../s-1.ts", undefined],
  ];
  for (const [name, want] of names)
    it(`reads ${name}`, () => assert.equal(parseTsLiveFile(name), want));
});
