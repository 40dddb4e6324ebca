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
 * IDR every second + AAC) whose output is piped to every client, as a TS headend would.
 *
 * - `/live.ts`: the stream, for as long as the client reads;
 * - `/drop.ts`: the stream, but each connection is cut after `dropAfterMs`;
 * - `/stall.ts`: the stream, but each connection falls silent (and stays open) after
 *   `dropAfterMs`;
 * - `/garbage.ts`: 96 KiB of an HLS playlist under `video/mp2t`, then the end.
 */
export async function startTsLiveOrigin(o: { dropAfterMs?: number } = {}): Promise<TsLiveOrigin> {
  const ffmpeg: ChildProcess = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-nostdin", "-loglevel", "error", "-re"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i", "sine"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25"],
      ...["-c:a", "aac", "-f", "mpegts", "pipe:1"],
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  const clients = new Set<ServerResponse>();
  ffmpeg.stdout!.on("data", (chunk: Buffer) => {
    for (const res of clients) res.write(chunk);
  });
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
    if (path !== "/live.ts" && path !== "/drop.ts" && path !== "/stall.ts") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "video/mp2t" });
    clients.add(res);
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
      ffmpeg.kill("SIGKILL");
      for (const res of clients) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
