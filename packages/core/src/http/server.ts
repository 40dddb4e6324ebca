import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import { parseListen } from "../config/schema.js";
import type { AppEnv } from "./types.js";
import { discardUnreadBody } from "./unread-body.js";

/** Timeouts that cut slow-header clients off in seconds (slowloris), not 30 s. */
const SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
} as const;

/**
 * Answers a request straight from node's objects, before the app sees it, and returns
 * true; false leaves the request to the app. For the few hot answers the app would give
 * byte for byte the same (the cached-playlist fast lane of playback).
 */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface RunningServer {
  readonly server: Server;
  /** `http://127.0.0.1:40123` — the real address, also for port 0. */
  readonly url: string;
  /** Stop accepting, let in-flight requests end, then cut what is left after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts one listener for the app and resolves once it accepts connections.
 * `tls` given: HTTPS with that PEM pair. `fastLane`: tried first on every request.
 */
export async function startServer(
  app: Hono<AppEnv>,
  listen: string,
  tls?: { cert: Buffer; key: Buffer },
  fastLane?: FastLane,
  /** `exclusive`: a worker's own port, not shared through the `node:cluster` primary. */
  listenOptions: { exclusive?: boolean } = {},
): Promise<RunningServer> {
  const address = parseListen(listen);
  if (address === undefined) throw new Error(`invalid listen address ${listen}`);
  // @hono/node-server's own Request/Response stand in for the globals (its default): a
  // c.json() or c.body() answer is then written straight from its string or bytes, where
  // undici's Response built a ReadableStream per answer — half the CPU of a /healthz
  // request on one core (docs/performance.md).
  // The adapter's own clean-up of unread bodies (500 ms or 64 MiB, then a close that resets a
  // client still uploading, so it never read its 413) is replaced by discardUnreadBody.
  const appListener = getRequestListener(app.fetch, { autoCleanupIncoming: false });
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    res.once("finish", () => {
      if (!req.complete) discardUnreadBody(req);
    });
    if (fastLane === undefined || !fastLane(req, res)) void appListener(req, res);
  };
  const server: Server =
    tls === undefined
      ? createHttpServer(SERVER_TIMEOUTS, listener)
      : createHttpsServer({ ...SERVER_TIMEOUTS, cert: tls.cert, key: tls.key }, listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const listenTo = { port: address.port, host: address.host, exclusive: listenOptions.exclusive };
    server.listen(listenTo, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  const url = `${tls === undefined ? "http" : "https"}://${host}:${bound.port}`;
  return {
    server,
    url,
    close: (graceMs = 5_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
