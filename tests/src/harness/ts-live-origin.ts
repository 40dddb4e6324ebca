import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One connection the origin accepted. */
export interface TsConnection {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  open: boolean;
}

export interface TsLiveOrigin {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly connections: TsConnection[];
  /** Connections to `path` sent with user agent `agent`. */
  count(path: string, agent: string): { total: number; open: number };
  stop(): Promise<void>;
}

/**
 * A loopback origin of a live, endless MPEG-TS: one ffmpeg encoder (`-re`, H.264 with an
 * IDR every second + AAC, or H.265 / AC-3 / a timestamp offset as asked) whose output is
 * piped to every client, as a TS headend would.
 *
 * - `/live.ts`: the stream, for as long as the client reads;
 * - `/drop.ts`: the stream, but each connection is cut after `dropAfterMs`;
 * - `/stall.ts`: the stream, but each connection falls silent (and stays open) after
 *   `dropAfterMs`;
 * - `/garbage.ts`: 96 KiB of an HLS playlist under `video/mp2t`, then the end;
 * - `/page.ts`: an HTML page that never ends (a provider's error page behind a proxy).
 */
export interface TsLiveOriginOptions {
  readonly dropAfterMs?: number;
  /** `h265`: libx265 instead of libx264 (an IRAP every second either way). */
  readonly video?: "h264" | "h265";
  /** `ac3`: AC-3 instead of AAC. */
  readonly audio?: "aac" | "ac3";
  /** ffmpeg's `-output_ts_offset` in seconds (near 2^33 / 90000 for a PTS wrap). */
  readonly tsOffsetSec?: number;
  /** The encoder starts at the first stream connection, not with the origin. */
  readonly lazy?: boolean;
}

export async function startTsLiveOrigin(o: TsLiveOriginOptions = {}): Promise<TsLiveOrigin> {
  const video =
    o.video === "h265"
      ? [
          "-c:v",
          "libx265",
          "-preset",
          "ultrafast",
          "-x265-params",
          "keyint=25:min-keyint=25:log-level=error",
        ]
      : ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25"];
  const args = [
    ...["-hide_banner", "-nostdin", "-loglevel", "error", "-re"],
    ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine"],
    ...[...video, "-pix_fmt", "yuv420p"],
    ...["-c:a", o.audio ?? "aac"],
    ...(o.tsOffsetSec === undefined ? [] : ["-output_ts_offset", String(o.tsOffsetSec)]),
    ...["-f", "mpegts", "pipe:1"],
  ];
  const clients = new Set<ServerResponse>();
  let ffmpeg: ChildProcess | undefined;
  const encode = () => {
    if (ffmpeg !== undefined) return;
    ffmpeg = spawn("ffmpeg", args, { stdio: ["ignore", "pipe", "ignore"] });
    ffmpeg.stdout!.on("data", (chunk: Buffer) => {
      for (const res of clients) res.write(chunk);
    });
  };
  if (!o.lazy) encode();
  const connections: TsConnection[] = [];
  const garbage = Buffer.from(
    "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg.ts\n".repeat(2000),
  );
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const conn: TsConnection = { path, headers: req.headers, open: true };
    connections.push(conn);
    res.once("close", () => {
      conn.open = false;
      clients.delete(res);
    });
    if (path === "/garbage.ts") {
      res.writeHead(200, { "content-type": "video/mp2t" });
      res.end(garbage);
      return;
    }
    if (path === "/page.ts") {
      res.writeHead(200, { "content-type": "video/mp2t" });
      const page = Buffer.from("<!DOCTYPE html><html><body>".padEnd(4096, " "));
      const timer = setInterval(() => res.write(page), 50);
      res.once("close", () => clearInterval(timer));
      return;
    }
    if (path !== "/live.ts" && path !== "/drop.ts" && path !== "/stall.ts") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "video/mp2t" });
    clients.add(res);
    encode();
    if (path === "/drop.ts") setTimeout(() => res.destroy(), o.dropAfterMs ?? 4000).unref();
    if (path === "/stall.ts") setTimeout(() => clients.delete(res), o.dropAfterMs ?? 4000).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    count(path, agent) {
      const mine = connections.filter((c) => c.path === path && c.headers["user-agent"] === agent);
      return { total: mine.length, open: mine.filter((c) => c.open).length };
    },
    async stop() {
      ffmpeg?.kill("SIGKILL");
      for (const res of clients) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
