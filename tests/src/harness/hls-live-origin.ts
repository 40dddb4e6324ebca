import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface HlsLiveOrigin {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Requests per path (`/index.m3u8`, `/seg-12.ts`, …) with user agent `agent`. */
  requests(agent: string): Map<string, number>;
  /** Resolves once the media playlist lists `segments` segments. */
  waitForSegments(segments: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A loopback live HLS origin with MPEG-TS segments: one ffmpeg encoder (`-re`, H.264 with
 * an IDR every second + AAC, 1 s segments, a 6-segment window) writing into a temp dir,
 * and an HTTP server for its files: `/master.m3u8` (one variant), `/index.m3u8`,
 * `/seg-N.ts` (with `fmp4`: CMAF segments `/seg-N.m4s` and `/init.mp4`; with `aesKey`, 16
 * characters: AES-128 segments and their key, those 16 bytes, at `/key.bin`). Every request is counted per path and user agent.
 */
export async function startHlsLiveOrigin(
  o: { fmp4?: boolean; aesKey?: string } = {},
): Promise<HlsLiveOrigin> {
  const dir = mkdtempSync(join(tmpdir(), "hls-live-"));
  const ffmpeg: ChildProcess = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-nostdin", "-loglevel", "error", "-re"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25"],
      ...["-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_list_size", "6"],
      ...["-hls_flags", "delete_segments+temp_file", "-master_pl_name", "master.m3u8"],
      ...(o.fmp4 ? ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"] : []),
      ...(o.aesKey
        ? ["-hls_enc", "1", "-hls_enc_key", o.aesKey, "-hls_enc_key_url", "key.bin"]
        : []),
      ...["-hls_segment_filename", join(dir, o.fmp4 ? "seg-%d.m4s" : "seg-%d.ts")],
      join(dir, "index.m3u8"),
    ],
    // cwd: ffmpeg writes the key file (`-hls_enc`) beside where it runs.
    { stdio: ["ignore", "ignore", "ignore"], cwd: dir },
  );
  const hits = new Map<string, Map<string, number>>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const agent = String(req.headers["user-agent"] ?? "");
    const byPath = hits.get(agent) ?? new Map<string, number>();
    hits.set(agent, byPath);
    byPath.set(path, (byPath.get(path) ?? 0) + 1);
    if (path === "/key.bin" && o.aesKey) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      // ffmpeg takes `-hls_enc_key` as the 16 key bytes themselves (a 16-character string).
      res.end(Buffer.from(o.aesKey, "latin1"));
      return;
    }
    const file = join(dir, path.slice(1));
    if (!/^\/[\w.-]+$/.test(path) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    const type = path.endsWith(".m3u8")
      ? "application/vnd.apple.mpegurl"
      : path.endsWith(".ts")
        ? "video/mp2t"
        : "video/mp4";
    res.writeHead(200, { "content-type": type, "cache-control": "no-cache" });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests: (agent) => hits.get(agent) ?? new Map(),
    async waitForSegments(segments, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const file = join(dir, "index.m3u8");
        const text = existsSync(file) ? readFileSync(file, "utf8") : "";
        if (
          (text.match(/^#EXTINF/gm) ?? []).length >= segments &&
          existsSync(join(dir, "master.m3u8"))
        )
          return;
        if (ffmpeg.exitCode !== null) throw new Error("ffmpeg exited");
        if (Date.now() > deadline) throw new Error("no HLS segments in time");
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      ffmpeg.kill("SIGKILL");
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
