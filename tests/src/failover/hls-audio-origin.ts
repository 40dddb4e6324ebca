import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What a source does: `live` serves it; `audio-404` answers 404 for its audio rendition's
 * playlist only; a number answers that status for everything.
 */
export type AudioSourceMode = "live" | "audio-404" | number;

/** The segment forms of a source's renditions: MPEG-TS, CMAF (fMP4), packed ADTS audio. */
export type AudioForm = "ts" | "fmp4" | "packed";

export interface HlsAudioOrigin {
  readonly url: string;
  /** `/{name}/{form}/master.m3u8`: a master whose variant's audio is a separate rendition. */
  master(name: string, form: AudioForm): string;
  set(name: string, mode: AudioSourceMode): void;
  /** Audio playlist requests source `name` answered so far. */
  audioPlaylistRequests(name: string): number;
  stop(): Promise<void>;
}

/** The renditions of one HLS output: `-var_stream_map` with the audio in its own group. */
function hlsOutput(dir: string, fmp4: boolean): string[] {
  mkdirSync(dir);
  return [
    ...["-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast"],
    ...["-pix_fmt", "yuv420p", "-g", "25", "-c:a", "aac", "-f", "hls", "-hls_time", "1"],
    ...["-hls_list_size", "6", "-hls_flags", "delete_segments+temp_file"],
    ...(fmp4 ? ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"] : []),
    ...["-master_pl_name", "master.m3u8"],
    ...["-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,default:yes"],
    ...["-hls_segment_filename", join(dir, fmp4 ? "%v-%d.m4s" : "%v-%d.ts"), join(dir, "%v.m3u8")],
  ];
}

/**
 * A loopback live HLS origin whose master playlists name a separate audio rendition
 * (`#EXT-X-MEDIA:TYPE=AUDIO`, the variant's `AUDIO=`), from ONE ffmpeg process (`-re`, 1 s
 * segments, a 6-segment window) with two HLS outputs: MPEG-TS renditions (video-only and
 * audio-only TS segments) and CMAF ones. Form `packed` serves the TS audio rendition as
 * packed audio (RFC 8216bis 3.4: an ID3 PRIV transportStreamTimestamp, then the ADTS
 * frames), made here from the TS segments. Every source name (`/{name}/…`) serves the same
 * encoder's output, switched per name by {@link HlsAudioOrigin.set}.
 */
export async function startHlsAudioOrigin(): Promise<HlsAudioOrigin> {
  const dir = mkdtempSync(join(tmpdir(), "hls-audio-"));
  const ffmpeg: ChildProcess = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-nostdin", "-loglevel", "error", "-re"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine"],
      ...hlsOutput(join(dir, "ts"), false),
      ...hlsOutput(join(dir, "fmp4"), true),
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  const modes = new Map<string, AudioSourceMode>();
  const audioPlaylists = new Map<string, number>();
  const server = createServer((req, res) => {
    const m = /^\/([\w-]+)\/(ts|fmp4|packed)\/([\w.-]+)$/.exec(
      new URL(req.url ?? "/", "http://x").pathname,
    );
    if (m === null) {
      res.writeHead(404).end();
      return;
    }
    const [, name, form, file] = m as unknown as [string, AudioForm, AudioForm, string];
    const mode = modes.get(name) ?? "live";
    if (file === "1.m3u8") audioPlaylists.set(name, (audioPlaylists.get(name) ?? 0) + 1);
    if (typeof mode === "number" || (mode === "audio-404" && file === "1.m3u8")) {
      res.writeHead(typeof mode === "number" ? mode : 404).end();
      return;
    }
    const packed = form === "packed";
    const path = join(dir, packed ? "ts" : form, file.replace(/\.aac$/, ".ts"));
    if (!existsSync(path)) {
      res.writeHead(404).end();
      return;
    }
    let body: Buffer = readFileSync(path);
    if (packed && file === "1.m3u8")
      body = Buffer.from(body.toString("utf8").replace(/\.ts$/gm, ".aac"));
    else if (packed && file.endsWith(".aac")) body = packedAudioOf(body);
    const type = file.endsWith(".m3u8")
      ? "application/vnd.apple.mpegurl"
      : file.endsWith(".ts")
        ? "video/mp2t"
        : file.endsWith(".aac")
          ? "audio/aac"
          : "video/mp4";
    res.writeHead(200, { "content-type": type, "cache-control": "no-cache" });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Both outputs have a few segments before any test reads them.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listed = (f: string) =>
      existsSync(f) ? (readFileSync(f, "utf8").match(/^#EXTINF/gm) ?? []).length : 0;
    if (
      ["ts", "fmp4"].every(
        (form) => listed(join(dir, form, "1.m3u8")) >= 3 && listed(join(dir, form, "0.m3u8")) >= 3,
      )
    )
      break;
    if (ffmpeg.exitCode !== null) throw new Error("ffmpeg exited");
    if (Date.now() > deadline) throw new Error("no HLS segments in time");
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    master: (name, form) => `${url}/${name}/${form}/master.m3u8`,
    set: (name, mode) => modes.set(name, mode),
    audioPlaylistRequests: (name) => audioPlaylists.get(name) ?? 0,
    async stop() {
      ffmpeg.kill("SIGKILL");
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An audio-only TS segment as packed audio: an ID3v2.4 tag whose PRIV frame carries the
 * first PES's PTS (8 bytes, big-endian), then the PES payloads (the ADTS frames) joined.
 */
function packedAudioOf(ts: Buffer): Buffer {
  const frames: Buffer[] = [];
  let pts: number | undefined;
  for (let at = 0; at + 188 <= ts.length; at += 188) {
    const pid = ((ts[at + 1]! & 0x1f) << 8) | ts[at + 2]!;
    // The audio-only output: PAT (0), PMT (0x1000), SDT (0x11), the audio on 0x100.
    if (pid !== 0x100 || (ts[at + 3]! & 0x10) === 0) continue;
    let payload = at + 4 + ((ts[at + 3]! & 0x20) !== 0 ? 1 + ts[at + 4]! : 0);
    if ((ts[at + 1]! & 0x40) !== 0) {
      if ((ts[payload + 7]! & 0x80) !== 0 && pts === undefined) {
        const b = ts.subarray(payload + 9);
        pts =
          ((b[0]! >> 1) & 7) * 2 ** 30 +
          (b[1]! << 22) +
          ((b[2]! >> 1) << 15) +
          (b[3]! << 7) +
          (b[4]! >> 1);
      }
      payload += 9 + ts[payload + 8]!;
    }
    frames.push(ts.subarray(payload, at + 188));
  }
  const owner = Buffer.from("com.apple.streaming.transportStreamTimestamp\0", "latin1");
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(BigInt(pts ?? 0));
  const frame = Buffer.concat([
    Buffer.from("PRIV"),
    Buffer.from([0, 0, 0, owner.length + 8, 0, 0]),
    owner,
    stamp,
  ]);
  const tag = Buffer.concat([
    Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, frame.length]),
    frame,
  ]);
  return Buffer.concat([tag, ...frames]);
}
