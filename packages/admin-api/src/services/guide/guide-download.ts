import { pipeline, Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { bindingFromSetting, type Egress } from "@svc/core/egress";
import { conditionalGet } from "../conditional-download.js";

/** Ceilings of one download (config `guide.max_download_bytes`, `guide.max_xml_bytes`). */
export interface DownloadLimits {
  readonly maxDownloadBytes: number;
  readonly maxXmlBytes: number;
}

/**
 * Past this much XML, decompressed bytes may be at most this many times the
 * bytes received: real XMLTV compresses 5-20x, a gzip bomb 1000x.
 */
const BOMB_FLOOR_BYTES = 8 * 1_048_576;
const BOMB_RATIO = 100;

const GUNZIP_CHUNK_BYTES = 256 * 1024;

/** A refused or failed download; the message is safe to show (no URL query, no body). */
export class GuideDownloadError extends Error {}

export interface DownloadCounters {
  /** Bytes received on the wire. */
  received: number;
  /** Bytes of XML after decompression. */
  xml: number;
  /** gzip layers removed (0: plain). */
  gzipLayers: number;
}

export type DownloadResult =
  | { readonly ok: true; readonly notModified: true }
  | {
      readonly ok: true;
      readonly notModified: false;
      /** The XML bytes, decompressed; iterating throws {@link GuideDownloadError}. */
      readonly xml: AsyncIterable<Buffer>;
      readonly etag: string | null;
      readonly lastModified: string | null;
      readonly counters: DownloadCounters;
    }
  | { readonly ok: false; readonly error: string };

/**
 * GETs a guide with {@link conditionalGet} (the source's proxy route). The body is gzip or plain XML whatever the
 * headers say: gzip is recognised by its magic bytes (RFC 1952 2.3.1), also
 * twice (a `.xml.gz` file sent with `Content-Encoding: gzip`).
 */
export async function downloadGuide(
  egress: Egress,
  request: {
    readonly url: string;
    readonly etag: string | null;
    readonly lastModified: string | null;
    readonly userAgent: string;
    readonly signal: AbortSignal;
    /** The source's `proxy` setting: `auto`, `direct` or a proxy profile id. */
    readonly proxy: string;
  },
  limits: DownloadLimits,
): Promise<DownloadResult> {
  const answer = await conditionalGet(
    egress,
    {
      url: request.url,
      headers: {
        "user-agent": request.userAgent,
        accept: "application/xml, text/xml, application/gzip, */*;q=0.5",
        "accept-encoding": "gzip",
      },
      validators: { etag: request.etag, lastModified: request.lastModified },
      signal: request.signal,
      // Spec "Guide source": `proxy` routes the download like a channel's egress binding.
      route: { binding: bindingFromSetting(request.proxy) },
    },
    {
      encodings: ["identity", "gzip", "x-gzip"],
      maxBytes: limits.maxDownloadBytes,
      what: "download",
    },
  );
  if (!answer.ok || answer.notModified) return answer;
  const { res, validators } = answer;
  const counters: DownloadCounters = { received: 0, xml: 0, gzipLayers: 0 };
  return {
    ok: true,
    notModified: false,
    xml: ceilinged(
      gunzipByMagic(received(res.body, counters, limits), counters, 2),
      counters,
      limits,
    ),
    etag: validators.etag,
    lastModified: validators.lastModified,
    counters,
  };
}

async function* received(
  body: AsyncIterable<Buffer>,
  counters: DownloadCounters,
  limits: DownloadLimits,
): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    counters.received += chunk.length;
    if (counters.received > limits.maxDownloadBytes)
      throw new GuideDownloadError(`download larger than ${limits.maxDownloadBytes} bytes`);
    yield chunk;
  }
}

async function* ceilinged(
  xml: AsyncIterable<Buffer>,
  counters: DownloadCounters,
  limits: DownloadLimits,
): AsyncGenerator<Buffer> {
  for await (const chunk of xml) {
    counters.xml += chunk.length;
    if (counters.xml > limits.maxXmlBytes)
      throw new GuideDownloadError(`decompressed guide larger than ${limits.maxXmlBytes} bytes`);
    if (counters.xml > BOMB_FLOOR_BYTES && counters.xml > BOMB_RATIO * counters.received)
      throw new GuideDownloadError(
        `decompression ratio above ${BOMB_RATIO}:1 (a gzip bomb): refused`,
      );
    yield chunk;
  }
}

/** Removes up to `layers` gzip layers, each recognised by the magic bytes 1f 8b. */
async function* gunzipByMagic(
  source: AsyncIterable<Buffer>,
  counters: DownloadCounters,
  layers: number,
): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const next = await it.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
  }
  const rest = (async function* () {
    if (head.length > 0) yield head;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
  if (layers === 0 || head[0] !== 0x1f || head[1] !== 0x8b) {
    yield* rest;
    return;
  }
  counters.gzipLayers += 1;
  // 16 KiB output pieces (the default) make every later stage run 16 times per
  // 256 KiB; a guide is hundreds of MB, so the per-piece overhead dominated.
  const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
  pipeline(Readable.from(rest), gunzip, () => undefined);
  try {
    yield* gunzipByMagic(gunzip as AsyncIterable<Buffer>, counters, layers - 1);
  } catch (err) {
    if (err instanceof GuideDownloadError) throw err;
    throw new GuideDownloadError(`gzip data is damaged: ${(err as Error).message}`);
  }
}
