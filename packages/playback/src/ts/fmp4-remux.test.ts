import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { haveFfmpeg, probeTs } from "@svc/test-kits/ffmpeg-tools";
import { boxesIn } from "../mp4/box-reader.js";
import { Fmp4SegmentRemuxer } from "./fmp4-segment-remuxer.js";

const HAVE_FFMPEG = haveFfmpeg();
const dir = mkdtempSync(join(tmpdir(), "ts-remux-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** 4 s of fragmented MP4 (one fragment per key frame, every second), `codec` video + AAC. */
function encode(name: string, video: string[]): Buffer {
  const out = join(dir, name);
  const r = spawnSync(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine"],
      ...video,
      ...["-g", "25", "-c:a", "aac", "-t", "4"],
      ...["-movflags", "frag_keyframe+empty_moov+default_base_moof", "-f", "mp4", out],
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(out);
}

/** The init section (ftyp + moov) and the media segments (moof + mdat each) of a fragmented MP4. */
function split(file: Buffer): { init: Buffer; segments: Buffer[] } {
  const boxes = boxesIn(file, 0, file.length, "file");
  const firstMoof = boxes.findIndex((b) => b.type === "moof");
  const init = file.subarray(0, boxes[firstMoof]!.start);
  const segments: Buffer[] = [];
  for (let i = firstMoof; i < boxes.length; i++)
    if (boxes[i]!.type === "moof")
      segments.push(file.subarray(boxes[i]!.start, boxes[i + 1]?.end ?? file.length));
  return { init, segments };
}

describe("fMP4 → MPEG-TS remux against ffmpeg", {
  skip: !HAVE_FFMPEG && "ffmpeg not installed",
}, () => {
  for (const [name, video, codec] of [
    ["avc.mp4", ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], "h264"],
    [
      "hevc.mp4",
      [
        "-c:v",
        "libx265",
        "-preset",
        "ultrafast",
        "-x265-params",
        "log-level=error",
        "-tag:v",
        "hvc1",
      ],
      "hevc",
    ],
  ] as const) {
    it(`${codec} + AAC: ffprobe decodes every frame of the remux without an error`, () => {
      const { init, segments } = split(encode(name, [...video]));
      assert.ok(segments.length >= 4, `${segments.length} fragments`);
      const r = Fmp4SegmentRemuxer.of(init);
      assert.ok(r.ok, r.ok ? "" : r.error);
      const packets = segments.flatMap((s) => {
        const out = r.value.segment(s);
        assert.ok(out.ok, out.ok ? "" : out.error);
        return out.value;
      });
      const ts = Buffer.concat(packets);
      const probed = probeTs(ts);
      assert.equal(probed.errors, "");
      assert.deepEqual(
        probed.streams.map((s) => [s.codec_type, s.codec_name]),
        [
          ["video", codec],
          ["audio", "aac"],
        ],
      );
      // 4 s at 25 fps; AAC at 44.1 kHz: 1024 samples a frame.
      assert.equal(Number(probed.streams[0]!.nb_read_frames), 100);
      assert.ok(Number(probed.streams[1]!.nb_read_frames) >= 170);
    });
  }

  it("names a codec it cannot carry", () => {
    const { init } = split(
      encode("vp9.mp4", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"]),
    );
    const r = Fmp4SegmentRemuxer.of(init);
    assert.deepEqual(r, {
      ok: false,
      error: "video codec vp09 (the native remux carries H.264 and H.265)",
    });
  });
});
