import { readFileSync, statSync } from "node:fs";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";

/** One request as the origin saw it. */
export interface OriginHit {
  readonly path: string;
  /** Path and query as received. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Set when the client (the gateway) closed the connection before the answer was complete. */
  aborted: boolean;
}

export interface Origin {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  readonly hits: OriginHit[];
  /** Hits whose path starts with `prefix`. */
  count(prefix: string): number;
  /** TCP connections accepted so far, whether or not a request followed. */
  readonly connections: () => number;
  close(): Promise<void>;
}

/** Extra routes: return true when the request was answered. */
export type OriginRoute = (req: IncomingMessage, res: ServerResponse, origin: Origin) => boolean;

const TYPES: Record<string, string> = {
  ".m3u8": "application/vnd.apple.mpegurl",
  ".ts": "video/mp2t",
  ".m4s": "video/iso.segment",
  ".mp4": "video/mp4",
  ".bin": "application/octet-stream",
};

/**
 * A loopback origin (node:http) serving a fixture directory with byte ranges,
 * ETag and Last-Modified, plus failure endpoints:
 * `/status/{code}` (with a body and a header that must never reach a player),
 * `/stall` (never answers), `/stall-body/{path}` (headers and 1 KiB, then silence),
 * `/redirect/{n}/{path}` (n hops, then the file), `/slow/{path}` (the file after 400 ms),
 * `/oversized.m3u8` (a 256 KiB playlist), `/abs/{path}.m3u8` (a playlist with
 * every relative URI made absolute), `{path}-noext` (a playlist served as
 * octet-stream under a name without extension), `/live/{n}.m3u8` (a live playlist
 * of `n` segments with target duration 2).
 */
export async function startOrigin(
  options: { root?: string; host?: string; routes?: OriginRoute } = {},
): Promise<Origin> {
  const host = options.host ?? "127.0.0.1";
  const hits: OriginHit[] = [];
  let connections = 0;
  const origin: Origin = {
    url: "",
    port: 0,
    hits,
    count: (prefix) => hits.filter((h) => h.path.startsWith(prefix)).length,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    const path = decodeURIComponent(url.split("?")[0]!);
    const hit: OriginHit = { path, url, headers: req.headers, aborted: false };
    hits.push(hit);
    res.on("close", () => {
      if (!res.writableFinished) hit.aborted = true;
    });
    if (options.routes?.(req, res, origin)) return;
    builtIn(req, res, path, options.root, origin);
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(origin, { port, url: `http://${host}:${port}` });
  return origin;
}

type Handler = (
  m: RegExpExecArray,
  req: IncomingMessage,
  res: ServerResponse,
  root: string | undefined,
  origin: Origin,
) => void;

const PLAYLIST = TYPES[".m3u8"]!;

/** Failure and shape endpoints, tried in order before the static files. */
const ROUTES: [RegExp, Handler][] = [
  [
    /^\/status\/(\d{3})$/,
    (m, _req, res) => {
      res.writeHead(Number(m[1]), {
        "x-upstream-secret": "origin-secret-header",
        "content-type": "text/plain",
      });
      res.end("origin-secret-body");
    },
  ],
  [/^\/stall$/, () => undefined],
  [
    /^\/stall-body(\/.+)$/,
    (_m, _req, res) => {
      res.writeHead(200, { "content-type": "video/mp2t", "content-length": String(1024 * 1024) });
      res.write(Buffer.alloc(1024, 0x47));
    },
  ],
  [
    /^\/redirect\/(\d+)(\/.+)$/,
    (m, _req, res) => {
      const n = Number(m[1]);
      res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}${m[2]}` : m[2]! }).end();
    },
  ],
  [
    /^\/slow(\/.+)$/,
    (m, req, res, root) => void setTimeout(() => serveFile(req, res, root, m[1]!), 400),
  ],
  [
    /^\/oversized\.m3u8$/,
    (_m, _req, res) => {
      const line = "#EXTINF:1,\nsegment-with-a-long-name-0000000000000000.ts\n";
      res.writeHead(200, { "content-type": PLAYLIST });
      res.end(
        `#EXTM3U\n#EXT-X-TARGETDURATION:1\n${line.repeat(Math.ceil((256 * 1024) / line.length))}`,
      );
    },
  ],
  [
    /^\/abs(\/.+\.m3u8)$/,
    (m, _req, res, root, origin) => {
      const file = m[1]!;
      const dir = file.slice(0, file.lastIndexOf("/") + 1);
      const text = readFileSync(join(root ?? "", normalize(file))).toString("utf8");
      const abs = text
        .replace(/^(?!#)(\S+)$/gm, (uri) => `${origin.url}${dir}${uri}`)
        .replace(/URI="([^"]+)"/g, (_all, uri: string) => `URI="${origin.url}${dir}${uri}"`);
      res.writeHead(200, { "content-type": PLAYLIST });
      res.end(abs);
    },
  ],
  [
    /^(\/.+)-noext$/,
    (m, _req, res, root) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(readFileSync(join(root ?? "", normalize(`${m[1]}.m3u8`))));
    },
  ],
  [
    /^\/live\/(\d+)\.m3u8$/,
    (m, _req, res) => {
      const n = Number(m[1]);
      let text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n";
      for (let i = 0; i < n; i++) text += `#EXTINF:2.000,\n/vod/v0_${i % 3}.ts\n`;
      res.writeHead(200, { "content-type": PLAYLIST });
      res.end(text);
    },
  ],
];

function builtIn(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  root: string | undefined,
  origin: Origin,
): void {
  for (const [pattern, handler] of ROUTES) {
    const m = pattern.exec(path);
    if (m !== null) {
      handler(m, req, res, root, origin);
      return;
    }
  }
  serveFile(req, res, root, path);
}

/** Static file with single byte ranges (RFC 9110 14), `If-Range` by ETag. */
function serveFile(
  req: IncomingMessage,
  res: ServerResponse,
  root: string | undefined,
  path: string,
): void {
  if (root === undefined || path.includes("..")) return void res.writeHead(404).end();
  const file = join(root, normalize(path));
  let size: number;
  let mtime: Date;
  try {
    const st = statSync(file);
    if (!st.isFile()) return void res.writeHead(404).end();
    size = st.size;
    mtime = st.mtime;
  } catch {
    return void res.writeHead(404).end();
  }
  const body = readFileSync(file);
  const etag = `"${size.toString(16)}-${mtime.getTime().toString(16)}"`;
  const headers: Record<string, string> = {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "accept-ranges": "bytes",
    etag,
    "last-modified": mtime.toUTCString(),
    "cache-control": "max-age=60",
    "x-upstream-secret": "origin-secret-header",
  };
  const range = req.headers.range;
  const ifRange = req.headers["if-range"];
  if (range !== undefined && (ifRange === undefined || ifRange === etag)) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range);
    let start = m?.[1] === "" ? size - Number(m?.[2]) : Number(m?.[1]);
    let end = m?.[1] === "" || m?.[2] === "" ? size - 1 : Number(m?.[2]);
    if (m === null || Number.isNaN(start) || start >= size || start < 0 || end < start) {
      res.writeHead(416, {
        "content-range": `bytes */${size}`,
        etag,
        "content-type": "text/plain",
      });
      return void res.end("range not satisfiable");
    }
    end = Math.min(end, size - 1);
    start = Math.max(start, 0);
    res.writeHead(206, {
      ...headers,
      "content-range": `bytes ${start}-${end}/${size}`,
      "content-length": String(end - start + 1),
    });
    return void res.end(body.subarray(start, end + 1));
  }
  res.writeHead(200, { ...headers, "content-length": String(size) });
  res.end(body);
}
