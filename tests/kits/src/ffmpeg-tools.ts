import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** Whether `ffmpeg` and `ffprobe` are on PATH. */
export function haveFfmpeg(): boolean {
  return (
    spawnSync("ffmpeg", ["-version"]).status === 0 &&
    spawnSync("ffprobe", ["-version"]).status === 0
  );
}

/** Paths of the clear CMAF sources written by {@link makeClearSources}. */
export interface ClearSources {
  av: string;
  video: string;
  audio: string;
}

const FRAG = ["-movflags", "+frag_keyframe+empty_moov+default_base_moof+cmaf", "-f", "mp4"];

/** Writes short clear fragmented sources (2 s, 320x240 H.264 + 48 kHz AAC) into `dir`. */
export function makeClearSources(dir: string, seconds = 2): ClearSources {
  const src = [
    "-f",
    "lavfi",
    "-i",
    "testsrc2=size=320x240:rate=25",
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=48000",
    "-t",
    String(seconds),
  ];
  const out = {
    av: join(dir, "clear-av.mp4"),
    video: join(dir, "clear-video.mp4"),
    audio: join(dir, "clear-audio.mp4"),
  };
  run("ffmpeg", [
    "-v",
    "error",
    "-y",
    ...src,
    "-c:v",
    "libx264",
    "-g",
    "25",
    "-c:a",
    "aac",
    ...FRAG,
    out.av,
  ]);
  run("ffmpeg", [
    "-v",
    "error",
    "-y",
    ...src,
    "-map",
    "0:v",
    "-c:v",
    "libx264",
    "-g",
    "25",
    ...FRAG,
    out.video,
  ]);
  run("ffmpeg", ["-v", "error", "-y", ...src, "-map", "1:a", "-c:a", "aac", ...FRAG, out.audio]);
  return out;
}

/**
 * Per-stream packet hashes as ffmpeg sees them, reading `input` through a pipe
 * (`cat f | ffmpeg -decryption_key K -i - -c copy -f streamhash -`), one line per stream.
 * Returns the lines or the error text when ffmpeg fails.
 */
export function streamHash(
  input: Buffer,
  keyHex?: string,
): { ok: true; lines: string[] } | { ok: false; stderr: string } {
  const args = [
    "-v",
    "error",
    ...(keyHex ? ["-decryption_key", keyHex] : []),
    "-i",
    "-",
    "-c",
    "copy",
    "-f",
    "streamhash",
    "-",
  ];
  const r = spawnSync("ffmpeg", args, { input, maxBuffer: 1 << 24 });
  if (r.status !== 0) return { ok: false, stderr: r.stderr.toString() };
  return { ok: true, lines: r.stdout.toString().trim().split("\n") };
}

/** `codec_tag_string` of every stream of `file` according to ffprobe. */
export function probeCodecTags(file: string): string[] {
  const r = run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "stream=codec_tag_string",
    "-of",
    "csv=p=0",
    file,
  ]);
  return r.trim().split("\n");
}

/** A stream as ffprobe's `-show_streams -count_frames` reports it. */
export interface ProbedStream {
  readonly codec_type: string;
  readonly codec_name: string;
  readonly width?: number;
  readonly height?: number;
  readonly nb_read_frames?: string;
}

/** ffprobe's streams of an MPEG-TS held in memory (read from stdin), frames decoded and counted. */
export function probeTs(bytes: Buffer): { streams: ProbedStream[]; errors: string } {
  const r = spawnSync(
    "ffprobe",
    [
      "-v",
      "error",
      "-count_frames",
      "-show_streams",
      "-of",
      "json",
      "-f",
      "mpegts",
      "-i",
      "pipe:0",
    ],
    { input: bytes, encoding: "utf8", timeout: 60_000, maxBuffer: 64 << 20 },
  );
  const parsed = JSON.parse(r.stdout || "{}") as { streams?: ProbedStream[] };
  return { streams: parsed.streams ?? [], errors: r.stderr };
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}
