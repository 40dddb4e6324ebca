import type { ServerResponse } from "node:http";
import type { Readable, Writable } from "node:stream";
import type { AppEnv, Build } from "@svc/core/http";
import { directResponseHeaderList } from "@svc/core/http";
import type { Context } from "hono";
import type { PlaybackStats } from "../delivery/playback-stats.js";

/**
 * Streamed media answers are written straight to the node response: undici's
 * body piped with `stream.pipeline` measured 80-100 % of nginx where a web
 * `Response` stream reached about 60 %. The headers the middleware would add
 * (security defaults, CORS set before the handler ran) are written here.
 */
export function writeDirectHead(
  c: Context<AppEnv>,
  build: Build,
  status: number,
  headers: Record<string, string>,
  withCors: boolean,
): void {
  // A flat list, not an object merged per request (see directResponseHeaderList).
  const list = directResponseHeaderList(build, c.get("requestId"));
  // CORS headers are set on c.res before the handler runs; reading c.res builds a
  // Response, so it is only read when CORS is configured at all.
  if (withCors) for (const [k, v] of c.res.headers) if (k !== "content-type") setHeader(list, k, v);
  for (const k in headers) setHeader(list, k, headers[k]!);
  c.env.outgoing.writeHead(status, list);
}

/** Sets `name` (lower case) in a flat header list: its value replaced where it is, else added. */
function setHeader(list: string[], name: string, value: string): void {
  for (let i = 0; i < list.length; i += 2) {
    if (list[i] === name) {
      list[i + 1] = value;
      return;
    }
  }
  list.push(name, value);
}

const SENT = new Map<number, Response>();

/**
 * The `Response` a handler returns after writing to the node response itself.
 * @hono/node-server skips any response carrying `x-hono-already-sent`; the status
 * feeds the access log. One instance per status is reused: building a web
 * Response per request measured a third of a cached playlist answer's CPU, and
 * the headers later middleware sets on it are never sent.
 */
export function alreadySent(status: number): Response {
  let res = SENT.get(status);
  if (res === undefined) {
    res = new Response(null, { status, headers: { "x-hono-already-sent": "true" } });
    SENT.set(status, res);
  }
  return res;
}

/** Sends a whole body (a rendered playlist) straight to the node response. */
export function sendBytes(
  c: Context<AppEnv>,
  build: Build,
  withCors: boolean,
  contentType: string,
  bytes: Buffer,
  extraHeaders: Record<string, string> = {},
): Response {
  writeDirectHead(
    c,
    build,
    200,
    { ...extraHeaders, "content-type": contentType, "content-length": String(bytes.length) },
    withCors,
  );
  c.env.outgoing.end(bytes);
  return alreadySent(200);
}

/**
 * Writes `chunks[from..]` to `out` in one corked `writev`; false when `out` is over its
 * high-water mark and the caller should wait for `drain`. One `writev` for the chunks of
 * an event-loop turn costs the kernel far less per byte than a `write` per 64 KiB chunk
 * with a wait for `drain` in between (docs/performance.md, "Segments"). The chunks are
 * queued, not copied, so writing past the high-water mark holds nothing the caller does
 * not hold already.
 */
export function writeCorked(out: Writable, chunks: readonly Buffer[], from = 0): boolean {
  let room = true;
  out.cork();
  for (let i = from; i < chunks.length; i++) room = out.write(chunks[i]);
  out.uncork();
  return room;
}

/**
 * Pipes `body` (after `first`, a chunk already read from it) to the client.
 * A client that goes away destroys the upstream body at once (the upstream request
 * is aborted); an upstream failure mid-body cuts the client off and is counted.
 *
 * Not `stream.pipeline`, which aborts an `AbortController` of its own at the end of
 * every pipe — a `DOMException` with a stack trace per request, 4-5 % of a 200 KiB
 * segment answer's CPU — and not `Readable.pipe`, which writes each upstream chunk
 * on its own: the chunks that arrive in one event-loop turn (one socket read hands
 * over up to 32 of 64 KiB) go to the client together (`writeCorked`). The upstream is
 * paused while the client's socket is over its high-water mark, so what is held is at
 * most one turn's reads.
 */
export function pipeBody(
  c: Context<AppEnv>,
  body: Readable,
  first: Buffer | undefined,
  stats: PlaybackStats,
): Promise<void> {
  const out = c.env.outgoing;
  if (first !== undefined) {
    stats.bytesIn += first.length;
    stats.bytesOut += first.length;
    out.write(first);
  }
  if (body.readableEnded) {
    out.end();
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const pending: Buffer[] = [];
    let queued = false;
    const resume = () => body.resume();
    const flush = () => {
      queued = false;
      if (pending.length === 0 || out.destroyed) return;
      const room = writeCorked(out, pending);
      pending.length = 0;
      if (!room) {
        body.pause();
        out.once("drain", resume);
      }
    };
    body.on("data", (chunk: Buffer) => {
      stats.bytesIn += chunk.length;
      stats.bytesOut += chunk.length;
      pending.push(chunk);
      if (!queued) {
        queued = true;
        setImmediate(flush);
      }
    });
    body.once("end", () => {
      flush();
      out.end();
    });
    body.once("error", () => {
      if (!out.writableFinished && !c.env.incoming.destroyed) stats.errors += 1;
      out.destroy();
    });
    out.once("close", () => {
      if (!body.destroyed) body.destroy();
      resolve();
    });
    // A body that `readFirstChunk` read from is paused: start it, as `pipe` would.
    body.resume();
  });
}

/**
 * Reads the first chunk of a body without consuming the rest (used to sniff
 * `#EXTM3U` behind an ambiguous content type). Null at end of stream.
 */
export function readFirstChunk(body: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      body.off("readable", onReadable);
      body.off("end", onEnd);
      body.off("error", onError);
    };
    const onReadable = () => {
      const chunk = body.read() as Buffer | null;
      if (chunk === null) return;
      cleanup();
      resolve(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(null);
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    body.on("readable", onReadable);
    body.once("end", onEnd);
    body.once("error", onError);
  });
}

/**
 * An AbortController fired when the client goes away before its answer is complete, so
 * waits and upstream requests made for it stop at once. An answer sent in full fires
 * nothing: every wait is over by then, and an abort costs an `AbortError` with its stack
 * and an event dispatch (4 % of a packaging gateway's CPU when it fired on every request,
 * docs/performance.md).
 */
export function abortOnDisconnect(c: Context<AppEnv>): AbortController {
  const ac = new AbortController();
  const out = c.env?.outgoing;
  if (out !== undefined)
    whenClosed(out, () => {
      if (!out.writableFinished) ac.abort();
    });
  return ac;
}

/** Runs `fn` once the response has closed (written out, or the client gone): now if it has. */
export function whenClosed(out: ServerResponse, fn: () => void): void {
  if (out.destroyed) fn();
  else out.once("close", fn);
}
