import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Dispatcher } from "undici";
import { classifyError } from "./egress-client.js";
import { isSensitiveHeader } from "./sensitive-headers.js";

/**
 * RFC 9110 7.6.1 hop-by-hop fields, plus the proxy's own credential and `host` (the target
 * URL decides the Host an upstream sees, never a client-supplied header).
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/**
 * Headers the proxy adds to the requests of one admitted process (the channel's headers,
 * its user agent among them). The sensitive ones go only to `origin`; every added field
 * replaces the client's own field of that name.
 */
export interface AddedHeaders {
  readonly headers: Readonly<Record<string, string>>;
  /** `scheme://host[:port]` of the channel source (WHATWG `URL.origin`). */
  readonly origin: string | undefined;
}

/**
 * Replaces a successful response body with another (the compatibility engine's decryption).
 * It must bound what it reads; a failure is answered 502 with the message as reason phrase.
 */
export type BodyRewrite = (
  target: URL,
  body: Readable,
) => Promise<{ ok: true; bytes: Buffer } | { ok: false; message: string }>;

/** Fields that describe the bytes as the origin sent them, untrue after a rewrite. */
const REPRESENTATION_FIELDS = [
  "content-length",
  "content-range",
  "accept-ranges",
  "etag",
  "content-md5",
];

/** A plain-text answer whose reason phrase ffmpeg prints in its log (`HTTP error 403 …`). */
export function answer(res: ServerResponse, status: number, text: string, phrase?: string): void {
  if (res.headersSent) return void res.destroy();
  if (phrase !== undefined) res.statusMessage = phrase;
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(`${text}\n`);
}

/**
 * Relays one absolute-form GET or HEAD (RFC 9112 3.2.2) through the dispatcher of its route
 * (the guarded agent, or a proxy profile's transport after the target check). Redirects are answered as they are, so ffmpeg's next request for the new
 * location comes back here and is checked again. The body streams with backpressure; a
 * client that goes away aborts the upstream request at once.
 */
export async function relayRequest(
  dispatcher: () => Promise<Dispatcher>,
  target: URL,
  req: IncomingMessage,
  res: ServerResponse,
  added?: AddedHeaders,
  onRefused?: (target: string, reason: string) => void,
  rewrite?: BodyRewrite,
): Promise<void> {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  let upstream: Dispatcher.ResponseData;
  try {
    upstream = await (await dispatcher()).request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: req.method as "GET" | "HEAD",
      headers: withAdded(endToEnd(req.rawHeaders, rewrite !== undefined), target, added),
      signal: controller.signal,
    });
  } catch (err) {
    const f = classifyError(err, controller.signal);
    if (f.kind === "aborted") return;
    if (f.kind === "refused") {
      onRefused?.(target.origin, f.message);
      return answer(res, 403, f.message, refusalPhrase(f.message));
    }
    return answer(res, f.kind === "timeout" ? 504 : 502, f.message);
  }
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream.headers))
    if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  if (rewrite !== undefined && upstream.statusCode === 200 && req.method === "GET") {
    const out = await rewrite(target, upstream.body);
    if (!out.ok) return answer(res, 502, out.message, `Bad Gateway (${out.message})`);
    for (const name of REPRESENTATION_FIELDS) delete headers[name];
    headers["content-length"] = out.bytes.length;
    res.writeHead(200, headers);
    return void res.end(out.bytes);
  }
  res.writeHead(upstream.statusCode, headers);
  // A failed pipeline has destroyed both sides: the client sees a cut response.
  await pipeline(upstream.body, res).catch(() => undefined);
}

/** The reason phrase of a 403: ffmpeg's log, and so the session's last error, says why. */
export function refusalPhrase(reason: string): string {
  return `Forbidden (egress guard: ${reason})`;
}

/** `fields` with the admitted process's headers set, each sensitive one only for its origin. */
function withAdded(fields: string[], target: URL, added: AddedHeaders | undefined): string[] {
  if (added === undefined) return fields;
  const entries = Object.entries(added.headers).filter(
    ([name]) => !isSensitiveHeader(name) || target.origin === added.origin,
  );
  const names = new Set(entries.map(([name]) => name.toLowerCase()));
  const out: string[] = [];
  for (let i = 0; i < fields.length; i += 2)
    if (!names.has(fields[i]!.toLowerCase())) out.push(fields[i]!, fields[i + 1]!);
  for (const [name, value] of entries) out.push(name, value);
  return out;
}

/**
 * The request's end-to-end fields as a flat name/value list (duplicates kept); without
 * `Range`/`If-Range` when the body is to be rewritten, which needs it whole.
 */
function endToEnd(raw: readonly string[], whole = false): string[] {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === "connection")
      for (const token of raw[i + 1]!.split(",")) listed.add(token.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (whole && (name === "range" || name === "if-range")) continue;
    if (!HOP_BY_HOP.has(name) && !listed.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
