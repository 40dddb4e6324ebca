import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ProbedStream {
  readonly codec_type: string;
  readonly codec_name: string;
  readonly profile?: string;
  readonly width?: number;
  readonly height?: number;
  readonly sample_rate?: string;
  readonly codec_tag_string?: string;
}

/** ffprobe's view of an fMP4 made of `parts` (init section first), decoded frames counted. */
export function probeMp4(parts: readonly Uint8Array[]): {
  streams: ProbedStream[];
  frames: number;
  errors: string;
} {
  const dir = mkdtempSync(join(tmpdir(), "probe-"));
  try {
    const file = join(dir, "media.mp4");
    writeFileSync(file, Buffer.concat(parts.map((p) => Buffer.from(p))));
    const r = spawnSync(
      "ffprobe",
      ["-v", "error", "-count_frames", "-show_streams", "-of", "json", file],
      { encoding: "utf8", timeout: 30_000 },
    );
    const parsed = JSON.parse(r.stdout || "{}") as {
      streams?: (ProbedStream & { nb_read_frames?: string })[];
    };
    const streams = parsed.streams ?? [];
    return {
      streams,
      frames: streams.reduce((n, s) => n + Number(s.nb_read_frames ?? 0), 0),
      errors: r.stderr,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `ffmpeg -i URL -t SECONDS -f null -` as an independent player; resolves with its
 * exit code and its error output (loglevel error, so warnings are not counted).
 */
export function playWithFfmpeg(
  url: string,
  seconds: number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(
      "ffmpeg",
      [
        "-hide_banner",
        "-nostdin",
        "-loglevel",
        "error",
        "-i",
        url,
        "-t",
        String(seconds),
        "-f",
        "null",
        "-",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    p.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
    p.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Lines of a playlist that are URIs (not tags, not blank). */
export function uriLines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

/** Values of the URI attribute of every tag named `tag`. */
export function tagUris(text: string, tag: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(`#${tag}:`)) continue;
    const m = /URI="([^"]*)"/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/**
 * SHA-256 over the payloads of the top-level `mdat` boxes of an fMP4 buffer: equal for
 * two files that carry the same samples, whatever their `moof`s say (clear vs decrypted).
 */
export function mdatHash(buf: Buffer): string {
  const h = createHash("sha256");
  for (let at = 0; at + 8 <= buf.length; ) {
    const size = buf.readUInt32BE(at);
    if (size < 8) break;
    if (buf.toString("latin1", at + 4, at + 8) === "mdat")
      h.update(buf.subarray(at + 8, at + size));
    at += size;
  }
  return h.digest("hex");
}
