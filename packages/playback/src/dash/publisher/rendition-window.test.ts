import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateMediaPlaylist } from "./playlist-validator.js";
import { QUERY_MARK, RenditionWindow } from "./rendition-window.js";

const part = (n: number, independent = false) => ({
  bytes: [Buffer.alloc(n, n)],
  byteLength: n,
  durationSec: 0.5,
  independent,
});

/** An LL window (parts of 0.5 s) with init section 0 and no segment yet. */
function emptyWindow(maxSegments: number): RenditionWindow {
  const w = new RenditionWindow({
    name: "v0",
    generation: "g1",
    maxSegments,
    targetDurationSec: 2,
  });
  w.setMap(0, Buffer.from("init"));
  w.partTargetSec = 0.5;
  return w;
}

function windowWith(segments: number, maxSegments = 10): RenditionWindow {
  const w = emptyWindow(maxSegments);
  for (let msn = 10; msn < 10 + segments; msn++) {
    w.begin(msn, false, 0);
    for (let i = 0; i < 4; i++) w.addPart(part(msn + i, i === 0));
    w.complete(0, 1_700_000_000_000 + (msn - 10) * 2000);
  }
  return w;
}

describe("RenditionWindow", () => {
  it("renders the same bytes whether its segments and parts were formatted before or not", () => {
    // One window rendered after every step (each object's lines formatted once and kept),
    // against a new window replaying the same steps and rendering once, at every step: the
    // part window slides, segments leave the window, a discontinuity and a new map come.
    type Step = (w: RenditionWindow) => void;
    const steps: Step[] = [];
    for (let msn = 0; msn < 9; msn++) {
      const discontinuity = msn === 5;
      steps.push((w) => {
        if (discontinuity) w.setMap(1, Buffer.from("init2"));
        w.begin(msn, discontinuity, discontinuity || msn > 5 ? 1 : 0, 2);
      });
      for (let i = 0; i < 4; i++) steps.push((w) => w.addPart(part(msn + i + 1, i === 0)));
      steps.push((w) =>
        w.complete(discontinuity || msn > 5 ? 1 : 0, 1_700_000_000_000 + msn * 2000),
      );
    }
    const fresh = () => emptyWindow(4);
    const kept = fresh();
    steps.forEach((step, n) => {
      step(kept);
      const replayed = fresh();
      for (const s of steps.slice(0, n + 1)) s(replayed);
      const reports = [{ uri: "a0.m3u8", lastMsn: n, lastPart: 0 }];
      for (const skip of [undefined, "YES"] as const)
        assert.equal(
          kept.render(skip, reports),
          replayed.render(skip, reports),
          `step ${n} ${skip ?? ""}`,
        );
    });
  });

  it("renders an LL-HLS playlist with parts, the pending segment and a preload hint", () => {
    const w = windowWith(3);
    w.begin(13, false, 0);
    w.addPart(part(1, true));
    const text = w.render(undefined, [{ uri: "a0.m3u8", lastMsn: 13, lastPart: 0 }]);
    assert.deepEqual(validateMediaPlaylist(text.replaceAll(QUERY_MARK, "")), []);
    assert.match(text, /#EXT-X-MEDIA-SEQUENCE:10\n/);
    assert.match(
      text,
      /#EXT-X-PART:DURATION=0\.500,URI="v0-13\.0\.m4s\?g=g1\u0001",INDEPENDENT=YES\n/,
    );
    assert.match(text, /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="v0-13\.1\.m4s\?g=g1\u0001"\n/);
    assert.match(text, /#EXT-X-RENDITION-REPORT:URI="a0.m3u8",LAST-MSN=13,LAST-PART=0\n/);
    assert.deepEqual(w.edge().lastPart, { msn: 13, index: 0 });
    assert.equal(w.isHinted(13, 1), true);
    assert.equal(w.isHinted(13, 2), false);
  });

  it("hints the next segment's first part once a pending segment's parts cover its duration", () => {
    const w = windowWith(3);
    w.begin(13, false, 0, 2);
    for (let i = 0; i < 3; i++) w.addPart(part(1, i === 0));
    assert.match(w.render(undefined, []), /PRELOAD-HINT:TYPE=PART,URI="v0-13\.3\.m4s/);
    assert.equal(w.isHinted(13, 3), true);
    // The fourth 0.5 s part completes the 2 s segment: its body has not ended yet, but
    // the next part to come is 14.0, not 13.4.
    w.addPart(part(1));
    assert.match(w.render(undefined, []), /PRELOAD-HINT:TYPE=PART,URI="v0-14\.0\.m4s/);
    assert.equal(w.isHinted(14, 0), true);
    assert.equal(w.isHinted(13, 4), false);
    w.complete(0);
    assert.equal(w.isHinted(14, 0), true);
  });

  it("hints a one-frame tail part that still comes, not the next segment (issue 36 item 1)", () => {
    // What bench/hlsjs-latency.mjs --trace showed: 1 s segments of 25 frames at 25 fps,
    // parts of 8 frames (PART-TARGET 0.32 s), so every segment is 0.32 + 0.32 + 0.32 +
    // a 0.04 s tail. The tail comes after the third part, and the hint must name it.
    const w = new RenditionWindow({
      name: "v0",
      generation: "g1",
      maxSegments: 5,
      targetDurationSec: 1,
    });
    w.setMap(0, Buffer.from("init"));
    w.partTargetSec = 0.32;
    const frames = (n: number, independent = false) => ({
      bytes: [Buffer.alloc(n, n)],
      byteLength: n,
      durationSec: n * 0.04,
      independent,
    });
    const hint = () =>
      /PRELOAD-HINT:TYPE=PART,URI="(v0-[\d.]+)\.m4s/.exec(w.render(undefined, []))?.[1];
    for (let msn = 1; msn <= 3; msn++) {
      w.begin(msn, false, 0, 1);
      w.addPart(frames(8, true));
      w.addPart(frames(8));
      w.addPart(frames(8));
      // From the second segment on the window has seen a one-frame part: 40 ms still to come.
      if (msn > 1) {
        assert.equal(hint(), `v0-${msn}.3`);
        assert.equal(w.isHinted(msn, 3), true);
        assert.equal(w.isHinted(msn + 1, 0), false);
      }
      w.addPart(frames(1));
      assert.equal(hint(), `v0-${msn + 1}.0`);
      assert.equal(w.isHinted(msn + 1, 0), true);
      w.complete(0);
    }
  });

  it("serves a segment as its parts' bytes in order, without a copy, and says what is future or gone", () => {
    const w = windowWith(2);
    const seg = w.segmentFile(11);
    assert.equal(seg.kind, "bytes");
    const p2 = w.partFile(11, 2);
    assert.equal(p2.kind, "bytes");
    if (seg.kind === "bytes" && p2.kind === "bytes") {
      assert.equal(seg.byteLength, 11 + 12 + 13 + 14);
      assert.equal(Buffer.concat(seg.bytes).length, seg.byteLength);
      assert.deepEqual(
        [...Buffer.concat(seg.bytes)],
        [11, 12, 13, 14].flatMap((n) => Array(n).fill(n)),
      );
      // The part served alone is the very buffer the segment lists third.
      assert.equal(p2.bytes.length, 1);
      assert.equal(p2.bytes[0], seg.bytes[2]);
      assert.equal(p2.byteLength, 13);
      assert.deepEqual([...p2.bytes[0]!], Array(13).fill(13));
    }
    assert.equal(w.segmentFile(12).kind, "future");
    assert.equal(w.partFile(12, 0).kind, "future");
    assert.equal(w.segmentFile(9).kind, "gone");
    assert.equal(w.partFile(11, 4).kind, "gone");
  });

  it("keeps published parts as copies, reuses their memory once dropped, never while an answer holds it", () => {
    const w = emptyWindow(1);
    const read = Buffer.alloc(4096, 1);
    const addSegment = (msn: number) => {
      w.begin(msn, false, 0);
      for (let i = 0; i < 4; i++)
        w.addPart({
          bytes: [Buffer.alloc(4096, msn % 256)],
          byteLength: 4096,
          durationSec: 0.5,
          independent: true,
        });
      w.complete(0);
    };
    w.begin(0, false, 0);
    w.addPart({ bytes: [read], byteLength: 4096, durationSec: 0.5, independent: true });
    read.fill(9); // the upstream read is not what the window serves
    w.complete(0);
    const first = w.segmentFile(0);
    assert.equal(first.kind, "bytes");
    if (first.kind !== "bytes") return;
    assert.deepEqual(first.bytes[0], Buffer.alloc(4096, 1));
    const held = w.hold(first.bytes);
    // A 64 KiB slab takes 16 parts: segment 5 is in the second slab, not the held one.
    for (let msn = 1; msn <= 5; msn++) addSegment(msn);
    const fifth = w.segmentFile(5);
    assert.equal(fifth.kind, "bytes");
    if (fifth.kind !== "bytes") return;
    const unheld = fifth.bytes[0]!;
    assert.notEqual(unheld.buffer, first.bytes[0]!.buffer);
    assert.deepEqual(unheld, Buffer.alloc(4096, 5));
    // Forty more segments: every other slab of the window is filled and dropped several times.
    for (let msn = 6; msn < 46; msn++) addSegment(msn);
    assert.deepEqual(first.bytes[0], Buffer.alloc(4096, 1), "held bytes stay as served");
    assert.notDeepEqual(unheld, Buffer.alloc(4096, 5), "dropped and not held: memory reused");
    held();
    assert.ok(w.bytesHeld() <= 4 * 4096 + "init".length);
  });

  it("keeps at most maxSegments segments and only the init sections still used", () => {
    const w = windowWith(6, 4);
    assert.deepEqual(
      w.segments.map((s) => s.msn),
      [12, 13, 14, 15],
    );
    w.setMap(1, Buffer.from("init-2"));
    w.begin(16, true, 1);
    w.addPart(part(3, true));
    w.complete(0);
    for (let msn = 17; msn < 21; msn++) {
      w.begin(msn, false, 1);
      w.addPart(part(3, true));
      w.complete(0);
    }
    assert.deepEqual([...w.maps.keys()], [1]);
    assert.equal(w.bytesHeld(), 4 * 3 + "init-2".length);
  });

  it("re-renders after every change and shares the text until then", () => {
    const w = windowWith(2);
    const a = w.render(undefined, []);
    assert.equal(w.render(undefined, []), a);
    w.begin(12, false, 0);
    w.addPart(part(5, true));
    assert.notEqual(w.render(undefined, []), a);
  });
});
