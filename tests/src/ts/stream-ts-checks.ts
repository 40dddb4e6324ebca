import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

// Shared by the stream.ts suites (extensions "MPEG-TS output"): reading a live TS and
// checking it the way a player would.

/** Reads `url` for `ms` and answers the status, the content type and the bytes read. */
export async function readFor(url: string, ms: number) {
  const ac = new AbortController();
  const r = await fetch(url, { signal: ac.signal });
  const chunks: Buffer[] = [];
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>)
      chunks.push(Buffer.from(chunk));
  } catch {
    // Aborted at the end of the read.
  } finally {
    clearTimeout(timer);
  }
  return { status: r.status, type: r.headers.get("content-type"), bytes: Buffer.concat(chunks) };
}

/** PID of the packet at `i` (188-byte grid from the first byte). */
export const pidAt = (b: Buffer, i: number) => ((b[i * 188 + 1]! & 0x1f) << 8) | b[i * 188 + 2]!;

/** Continuity errors of a byte stream on the 188-byte grid: packets with payload only. */
export function continuityErrors(b: Buffer): number {
  const last = new Map<number, number>();
  let errors = 0;
  for (let at = 0; at + 188 <= b.length; at += 188) {
    assert.equal(b[at], 0x47, `sync byte at ${at}`);
    const pid = ((b[at + 1]! & 0x1f) << 8) | b[at + 2]!;
    if ((b[at + 3]! & 0x10) === 0) continue;
    const cc = b[at + 3]! & 0x0f;
    const prev = last.get(pid);
    if (prev !== undefined && cc !== ((prev + 1) & 0x0f)) errors += 1;
    last.set(pid, cc);
  }
  return errors;
}

/** Packets carrying a PCR, and the PIDs they are on. */
export function pcrPids(b: Buffer): Set<number> {
  const pids = new Set<number>();
  for (let at = 0; at + 188 <= b.length; at += 188)
    if ((b[at + 3]! & 0x20) !== 0 && b[at + 4]! > 0 && (b[at + 5]! & 0x10) !== 0)
      pids.add(((b[at + 1]! & 0x1f) << 8) | b[at + 2]!);
  return pids;
}

/** ffprobe's streams of a TS held in memory (read from stdin), frames decoded and counted. */
export function probeTs(bytes: Buffer): {
  streams: { codec_type: string; codec_name: string; nb_read_frames?: string }[];
  errors: string;
} {
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
  const parsed = JSON.parse(r.stdout || "{}") as {
    streams?: { codec_type: string; codec_name: string; nb_read_frames?: string }[];
  };
  return { streams: parsed.streams ?? [], errors: r.stderr };
}
