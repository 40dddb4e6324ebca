import assert from "node:assert/strict";
import { it } from "node:test";
import { probeTs } from "@svc/test-kits/ffmpeg-tools";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { playWithFfmpeg } from "../harness/media-probe.js";
import { authSection } from "../harness/users.js";

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
  return {
    status: r.status,
    type: r.headers.get("content-type"),
    bytes: Buffer.concat(chunks),
    /** The gateway ended the stream before the read's time was up. */
    endedEarly: !ac.signal.aborted,
  };
}

/** PID of the packet at `i` (188-byte grid from the first byte). */
export const pidAt = (b: Buffer, i: number) => ((b[i * 188 + 1]! & 0x1f) << 8) | b[i * 188 + 2]!;

/** Continuity errors of a byte stream on the 188-byte grid: packets with payload only. */
export function continuityErrors(b: Buffer): number {
  const last = new Map<number, number>();
  let errors = 0;
  for (let at = 0; at + 188 <= b.length; at += 188) {
    assert.equal(b[at], 0x47, `sync byte at ${at}`);
    const pid = pidAt(b, at / 188);
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
      pids.add(pidAt(b, at / 188));
  return pids;
}

/**
 * The check every stream.ts suite starts with: ffmpeg decodes `url` for `seconds` with
 * nothing on stderr at `-loglevel error` while a second viewer, joining `joinAfterMs` later,
 * reads for `readMs`; that viewer's bytes are answered with the viewer checks done (status,
 * content type, PAT first, no continuity error).
 */
export async function playBesideSecondViewer(
  url: string,
  o: { seconds: number; joinAfterMs: number; readMs: number },
) {
  const second = (async () => {
    await new Promise((r) => setTimeout(r, o.joinAfterMs));
    return readFor(url, o.readMs);
  })();
  const player = await playWithFfmpeg(url, o.seconds);
  assert.equal(player.code, 0, player.stderr);
  assert.equal(player.stderr, "", "ffmpeg reports no error (continuity, PES, decode)");
  const v = await second;
  assert.equal(v.status, 200);
  assert.equal(v.type, "video/mp2t");
  assert.ok(v.bytes.length > 20 * 188, `read ${v.bytes.length} bytes`);
  assert.equal(pidAt(v.bytes, 0), 0, "a viewer starts with PAT");
  assert.equal(continuityErrors(v.bytes), 0);
  return v;
}

/** ffprobe reads H.264 video then AAC audio from `bytes`; `minFrames` decoded of each. */
export function assertH264Aac(bytes: Buffer, minFrames = 0): void {
  const probed = probeTs(bytes);
  assert.deepEqual(
    probed.streams.map((s) => [s.codec_type, s.codec_name]),
    [
      ["video", "h264"],
      ["audio", "aac"],
    ],
    probed.errors,
  );
  for (const s of probed.streams)
    assert.ok(Number(s.nb_read_frames) >= minFrames, JSON.stringify(s));
}

/**
 * The cases of a channel whose fMP4 is remuxed to TS by the gateway (DASH clear and
 * ClearKey): 30 s in ffmpeg beside a second viewer (PMT next to PAT, PCR on the video PID),
 * ffprobe's decode of both streams, and HEAD. `url()` is read when each case runs.
 */
export function remuxedChannelCases(url: () => string): void {
  it("decodes in ffmpeg for 30 s with nothing at -loglevel error, beside a second viewer", async () => {
    const v = await playBesideSecondViewer(url(), {
      seconds: 30,
      joinAfterMs: 4000,
      readMs: 12_000,
    });
    assert.ok(v.bytes.length > 100 * 188, `read ${v.bytes.length} bytes`);
    assert.equal(pidAt(v.bytes, 1), 0x1000, "then PMT");
    assert.deepEqual([...pcrPids(v.bytes)], [0x100], "PCR on the video PID");
  });

  it("ffprobe finds H.264 and AAC and decodes their frames", async () => {
    assertH264Aac((await readFor(url(), 6000)).bytes, 11);
  });

  it("HEAD answers the headers only", async () => {
    const r = await fetch(url(), { method: "HEAD" });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "video/mp2t");
    assert.equal((await r.arrayBuffer()).byteLength, 0);
  });
}

/**
 * The gateway the stream.ts suites play from: `extensions.ts_output` on, open play routes
 * (`play_require_auth: false`) on 127.0.0.1, these channels.
 */
export function startStreamTsGateway(
  build: "lite" | "full",
  channels: readonly Record<string, unknown>[],
): Promise<GatewayProcess> {
  return startGateway(build, {
    auth: authSection(),
    security: { allowed_hosts: ["127.0.0.1"], play_require_auth: false },
    extensions: { ts_output: true },
    channels,
  });
}
