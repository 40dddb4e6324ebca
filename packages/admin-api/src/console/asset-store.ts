import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";

export type ContentCoding = "br" | "gzip" | "identity";

/** One stored encoding of an asset, with its own strong ETag (RFC 9110 8.8.3: per representation). */
export interface Representation {
  readonly body: Uint8Array;
  readonly etag: string;
}

export interface Asset {
  readonly type: string;
  readonly cacheControl: string;
  readonly encodings: ReadonlyMap<ContentCoding, Representation>;
}

/** Hashed file names never change content: a year, immutable (the asset policy). */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** Stable names (openapi.json) are revalidated with their ETag on every use. */
export const REVALIDATE = "no-cache";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

function representation(body: Uint8Array, hash: string, coding: ContentCoding): Representation {
  return { body, etag: coding === "identity" ? `"${hash}"` : `"${hash}-${coding}"` };
}

function digest(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url").slice(0, 22);
}

/**
 * Loads the console's built assets (`dist/assets`) into memory once at startup,
 * with the `.gz`/`.br` siblings the build wrote beside each file.
 */
export function loadAssetDirectory(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".gz") || name.endsWith(".br")) continue;
    const identity = readFileSync(join(dir, name));
    const hash = digest(identity);
    const encodings = new Map<ContentCoding, Representation>([
      ["identity", representation(identity, hash, "identity")],
    ]);
    for (const [coding, suffix] of [
      ["br", ".br"],
      ["gzip", ".gz"],
    ] as const) {
      const path = join(dir, name + suffix);
      if (existsSync(path)) encodings.set(coding, representation(readFileSync(path), hash, coding));
    }
    assets.set(name, {
      type: TYPES[extname(name)] ?? "application/octet-stream",
      cacheControl: IMMUTABLE,
      encodings,
    });
  }
  return assets;
}

/** An asset made at startup from bytes (the OpenAPI document), compressed once. */
export function assetFromBytes(bytes: Uint8Array, type: string, cacheControl: string): Asset {
  const hash = digest(bytes);
  return {
    type,
    cacheControl,
    encodings: new Map<ContentCoding, Representation>([
      ["identity", representation(bytes, hash, "identity")],
      ["br", representation(brotliCompressSync(bytes), hash, "br")],
      ["gzip", representation(gzipSync(bytes, { level: 9 }), hash, "gzip")],
    ]),
  };
}
