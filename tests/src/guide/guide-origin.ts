import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the origin answers on one path; replaceable while a test runs. */
export interface OriginRoute {
  status?: number;
  body?: Buffer | string;
  headers?: Record<string, string>;
  /** Answers 304 when the request's If-None-Match equals this ETag. */
  etag?: string;
  /** Waits this long before answering (to make concurrent requests overlap). */
  delayMs?: number;
}

/** A loopback origin (127.0.0.1) for guide documents and logos. */
export interface GuideOrigin {
  readonly url: string;
  readonly routes: Map<string, OriginRoute>;
  /** Request headers seen, by path, in arrival order. */
  readonly seen: Map<string, IncomingHttpHeaders[]>;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startGuideOrigin(): Promise<GuideOrigin> {
  const routes = new Map<string, OriginRoute>();
  const seen = new Map<string, IncomingHttpHeaders[]>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    seen.set(path, [...(seen.get(path) ?? []), req.headers]);
    const route = routes.get(path);
    const answer = () => {
      if (route === undefined) {
        res.writeHead(404).end();
        return;
      }
      if (route.etag !== undefined && req.headers["if-none-match"] === route.etag) {
        res.writeHead(304, { etag: route.etag }).end();
        return;
      }
      const body = route.body ?? "";
      res.writeHead(route.status ?? 200, {
        "content-length": Buffer.byteLength(body),
        ...(route.etag === undefined ? {} : { etag: route.etag }),
        ...route.headers,
      });
      res.end(body);
    };
    if (route?.delayMs) setTimeout(answer, route.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    seen,
    hits: (path) => seen.get(path)?.length ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 1x1 PNG (real image bytes; the gateway sniffs them). */
export const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
/** A GIF89a header plus one pixel. */
export const GIF_1X1 = Buffer.from(
  "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7",
  "base64",
);
