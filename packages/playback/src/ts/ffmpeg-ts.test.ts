import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PacketReader } from "./packet-reader.js";
import { PTS_WRAP } from "./pes.js";
import { SegmentCutter, type TsSegment } from "./segment-cutter.js";

const HAVE_FFMPEG =
  spawnSync("ffmpeg", ["-version"]).status === 0 && spawnSync("ffprobe", ["-version"]).status === 0;
const dir = mkdtempSync(join(tmpdir(), "ts-cutter-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** 6 s (or `seconds`) of H.264 + AAC in MPEG-TS, IDR every 2 s (issue 33's fixture command). */
function encode(name: string, seconds: number, extra: string[] = []): Buffer {
  const out = join(dir, name);
  const r = spawnSync(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine"],
      ...[
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-g",
        "50",
        "-c:a",
        "aac",
      ],
      ...["-t", String(seconds), ...extra, "-f", "mpegts", out],
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(out);
}

function cutAll(bytes: Buffer, targetSec: number): { segments: TsSegment[]; codecs?: string } {
  const reader = new PacketReader();
  const cutter = new SegmentCutter({ targetSec });
  const segments: TsSegment[] = [];
  // Odd chunk sizes, as a socket delivers them.
  for (let i = 0, step = 1000; i < bytes.length; i += step, step = 500 + ((step * 7) % 4000)) {
    const r = reader.push(bytes.subarray(i, i + step));
    assert.ok(r.ok);
    segments.push(...cutter.push(r.packets));
  }
  segments.push(...cutter.push(reader.flush()), ...cutter.discontinuity());
  return { segments, ...(cutter.codecs === undefined ? {} : { codecs: cutter.codecs }) };
}

function probe(path: string, args: string[]): Record<string, unknown> {
  const r = spawnSync("ffprobe", ["-v", "error", "-of", "json", ...args, path], {
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `${path}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

function videoDuration(path: string): number {
  const p = probe(path, ["-select_streams", "v", "-show_entries", "stream=duration"]) as {
    streams: { duration: string }[];
  };
  return Number(p.streams[0]?.duration);
}

function checkSegments(name: string, segments: readonly TsSegment[]): void {
  segments.forEach((s, i) => {
    const path = join(dir, `${name}-${i}.ts`);
    writeFileSync(path, s.bytes);
    const p = probe(path, [
      ...["-show_entries", "stream=codec_name:frame=key_frame,pict_type"],
      ...["-select_streams", "v", "-show_frames", "-read_intervals", "%+#1"],
    ]) as { streams: { codec_name: string }[]; frames: { key_frame: number; pict_type: string }[] };
    assert.deepEqual(
      p.streams.map((x) => x.codec_name),
      ["h264"],
      `segment ${i}: ffprobe reads its video`,
    );
    assert.deepEqual(
      [p.frames[0]?.key_frame, p.frames[0]?.pict_type],
      [1, "I"],
      `segment ${i} starts with an IDR`,
    );
    const all = probe(path, ["-show_entries", "stream=codec_name"]) as {
      streams: { codec_name: string }[];
    };
    assert.deepEqual(all.streams.map((x) => x.codec_name).sort(), ["aac", "h264"]);
  });
}

describe("SegmentCutter over ffmpeg's MPEG-TS", { skip: !HAVE_FFMPEG }, () => {
  it("cuts 6 s into three 2 s segments that start at IDRs and ffprobe reads", () => {
    const file = encode("plain.ts", 6);
    const { segments, codecs } = cutAll(file, 2);
    assert.deepEqual(
      segments.map((s) => s.durationSec),
      [2, 2, 2],
    );
    const sum = segments.reduce((a, s) => a + s.durationSec, 0);
    assert.ok(Math.abs(sum - videoDuration(join(dir, "plain.ts"))) < 0.05, `sum ${sum}`);
    assert.match(codecs ?? "", /^avc1\.[0-9a-f]{6},mp4a\.40\.2$/);
    checkSegments("plain", segments);
  });

  it("a 1 s target still cuts only at the 2 s IDRs", () => {
    const { segments } = cutAll(readFileSync(join(dir, "plain.ts")), 1);
    assert.deepEqual(
      segments.map((s) => s.durationSec),
      [2, 2, 2],
    );
  });

  it("handles the PTS wrap at 2^33 (output_ts_offset 95440 s)", () => {
    const file = encode("wrap.ts", 8, ["-output_ts_offset", "95440"]);
    const { segments } = cutAll(file, 2);
    assert.deepEqual(
      segments.map((s) => [s.durationSec, s.discontinuity]),
      [
        [2, false],
        [2, false],
        [2, false],
        [2, false],
      ],
    );
    const starts = segments.map((s) => s.startPts);
    assert.ok(
      starts.some((p, i) => i > 0 && p < starts[i - 1]!),
      `the timestamps wrapped: ${starts.join()}`,
    );
    assert.ok(starts[0]! > PTS_WRAP - 10 * 90_000);
    checkSegments("wrap", segments);
  });
});
