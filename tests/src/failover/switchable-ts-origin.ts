import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pidAt } from "../ts/stream-ts-checks.js";

/**
 * What a path of the origin does: `live` streams; `stall` keeps connections open without a
 * byte; `drop` cuts every connection (and answers new ones with headers, then the end);
 * `audio` streams only the audio packets (no video); a number answers that status.
 */
export type PathMode = "live" | "stall" | "drop" | "audio" | number;

export interface SwitchableTsOrigin {
  readonly url: string;
  /** Sets what `path` does from now on; its open connections follow at once. */
  set(path: string, mode: PathMode): void;
  /** Connections made to `path` so far. */
  connections(path: string): number;
  stop(): Promise<void>;
}

/** PIDs ffmpeg's mpegts muxer gives the first (video) and second (audio) stream. */
const VIDEO_PID = 0x100;

/**
 * A loopback origin of live MPEG-TS paths whose behaviour a test switches: one ffmpeg
 * encoder (`-re`, H.264 with an IDR every second + AAC) piped to every live client.
 */
export async function startSwitchableTsOrigin(): Promise<SwitchableTsOrigin> {
  const ffmpeg: ChildProcess = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-nostdin", "-loglevel", "error", "-re"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-f", "lavfi", "-i", "sine"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25"],
      ...["-c:a", "aac", "-f", "mpegts", "pipe:1"],
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  const modes = new Map<string, PathMode>();
  const clients = new Map<ServerResponse, string>();
  const counts = new Map<string, number>();
  let carry = Buffer.alloc(0);
  ffmpeg.stdout!.on("data", (chunk: Buffer) => {
    const buf = Buffer.concat([carry, chunk]);
    const whole = buf.length - (buf.length % 188);
    carry = Buffer.from(buf.subarray(whole));
    const packets = buf.subarray(0, whole);
    let audioOnly: Buffer | undefined;
    for (const [res, path] of clients) {
      const mode = modes.get(path) ?? "live";
      if (mode === "live") res.write(packets);
      else if (mode === "audio") {
        audioOnly ??= withoutPid(packets, VIDEO_PID);
        if (audioOnly.length > 0) res.write(audioOnly);
      }
    }
  });
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const mode = modes.get(path);
    res.once("close", () => clients.delete(res));
    if (mode === undefined) {
      res.writeHead(404).end();
      return;
    }
    if (typeof mode === "number") {
      res.writeHead(mode).end();
      return;
    }
    res.writeHead(200, { "content-type": "video/mp2t" });
    // Headers go out at once, as a real server sends them: a `stall` path is then a source
    // that answered and fell silent (no_bytes), not one that never answered (connect_error).
    res.flushHeaders();
    if (mode === "drop") {
      res.end();
      return;
    }
    clients.set(res, path);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set(path, mode) {
      modes.set(path, mode);
      if (mode === "drop" || typeof mode === "number")
        for (const [res, p] of clients) if (p === path) res.destroy();
    },
    connections: (path) => counts.get(path) ?? 0,
    async stop() {
      ffmpeg.kill("SIGKILL");
      for (const res of clients.keys()) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function withoutPid(packets: Buffer, pid: number): Buffer {
  const kept: Buffer[] = [];
  for (let i = 0; (i + 1) * 188 <= packets.length; i += 1)
    if (pidAt(packets, i) !== pid) kept.push(packets.subarray(i * 188, (i + 1) * 188));
  return Buffer.concat(kept);
}
