import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A small live HLS origin on 127.0.0.1: one media playlist and 188-byte TS segments. */
export interface LoopbackOrigin {
  readonly url: string;
  readonly playlist: string;
  /** Requests seen, by path. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

export const SEGMENT_BYTES = Buffer.alloc(188 * 10, 0x47);

export async function startLoopbackOrigin(): Promise<LoopbackOrigin> {
  const playlist = [
    "#EXTM3U",
    "#EXT-X-VERSION:3",
    "#EXT-X-TARGETDURATION:4",
    "#EXT-X-MEDIA-SEQUENCE:100",
    "#EXTINF:4.0,",
    "seg100.ts",
    "#EXTINF:4.0,",
    "seg101.ts",
    "",
  ].join("\n");
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === "/live/index.m3u8") {
      res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
      res.end(playlist);
    } else if (/^\/live\/seg\d+\.ts$/.test(path)) {
      res.writeHead(200, { "content-type": "video/mp2t", "content-length": SEGMENT_BYTES.length });
      res.end(SEGMENT_BYTES);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    playlist,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
