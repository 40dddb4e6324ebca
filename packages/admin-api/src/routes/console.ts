import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GatewayError } from "@svc/core/errors";
import { defineRoutes, PUBLIC, routesOf } from "@svc/core/route-table";
import type { Hono } from "hono";
import Negotiator from "negotiator";
import {
  type Asset,
  assetFromBytes,
  type ContentCoding,
  loadAssetDirectory,
  REVALIDATE,
} from "../console/asset-store.js";
import type { AdminEnv } from "../context/env.js";

export interface ConsoleOptions {
  /** The console build (`packages/console/dist`): `index.html` and `assets/`. */
  readonly distDir: string;
  /** The OpenAPI document, served as `/admin/assets/openapi.json` (called once, at its first request). */
  readonly openapi: () => unknown;
  /** The runtime `public_base_url` (may name another origin for playback URLs). */
  readonly publicBaseUrl: () => string;
}

/** Preference order when the client accepts several codings equally. */
const CODINGS: ContentCoding[] = ["br", "gzip", "identity"];

/**
 * The console's CSP (spec "Security settings": strict, no inline script or
 * style). `media-src`/`connect-src` allow the gateway's own playback URLs —
 * `public_base_url`'s origin when it names another one — and `blob:`, which
 * hls.js uses for the Media Source Extensions object URL.
 */
export function consoleCsp(publicBaseUrl: string): string {
  let playback = "";
  try {
    if (publicBaseUrl !== "") playback = ` ${new URL(publicBaseUrl).origin}`;
  } catch {
    // settings validate the URL; an unparsable one adds nothing
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `media-src 'self' blob:${playback}`,
    `connect-src 'self'${playback}`,
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** RFC 9110 13.1.2: If-None-Match uses the weak comparison; `*` matches any. */
function matchesNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => strip(t) === "*" || strip(t) === strip(etag));
}

export const consoleRoutes = defineRoutes("/admin", {
  shell: {
    method: "GET",
    path: "/",
    access: PUBLIC,
    summary: "Console shell",
    tag: "console",
    success: [200, "The console's HTML shell (no-store)", "text/html"],
  },
  asset: {
    method: "GET",
    path: "/*",
    access: PUBLIC,
    summary: "Console assets and this document",
    tag: "console",
    success: [
      200,
      "Hashed asset (immutable, gzip/br, ETag); 304 on If-None-Match",
      "application/octet-stream",
    ],
    errors: ["not_found"],
  },
});

/**
 * `GET /admin`, `/admin/` (the shell, `no-store`) and `/admin/assets/*` (hashed
 * files, immutable, precompressed br/gzip chosen by Accept-Encoding, strong
 * ETag, 304 on If-None-Match). Everything is read into memory at startup.
 */
export function createConsoleRoutes(options: ConsoleOptions): Hono<AdminEnv> {
  const shell = readFileSync(join(options.distDir, "index.html"));
  const assets = loadAssetDirectory(join(options.distDir, "assets"));
  // Built on its first request: the document is derived from the app's registered
  // routes, these included, so it exists only once the app is composed.
  let openapi: Asset | undefined;
  const openapiAsset = () => {
    openapi ??= assetFromBytes(
      Buffer.from(JSON.stringify(options.openapi())),
      "application/json; charset=utf-8",
      REVALIDATE,
    );
    return openapi;
  };

  const serveShell = () =>
    new Response(shell, {
      headers: {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        "Content-Security-Policy": consoleCsp(options.publicBaseUrl()),
      },
    });

  const serveAsset = (asset: Asset, accept: string | undefined, noneMatch: string | undefined) => {
    const available = CODINGS.filter((c) => asset.encodings.has(c));
    // negotiator 1.x takes the server's preference for ties; @types/negotiator lags behind.
    const negotiator = new Negotiator({
      headers: { "accept-encoding": accept ?? "" },
    }) as unknown as {
      encoding(available: string[], options: { preferred: string[] }): string | undefined;
    };
    const chosen =
      (negotiator.encoding(available, { preferred: CODINGS }) as ContentCoding | undefined) ??
      "identity";
    const rep = asset.encodings.get(chosen) ?? asset.encodings.get("identity")!;
    const headers: Record<string, string> = {
      "Cache-Control": asset.cacheControl,
      ETag: rep.etag,
      "Content-Security-Policy": consoleCsp(options.publicBaseUrl()),
    };
    if (available.length > 1) headers.Vary = "Accept-Encoding";
    if (matchesNoneMatch(noneMatch, rep.etag)) return new Response(null, { status: 304, headers });
    headers["Content-Type"] = asset.type;
    if (chosen !== "identity") headers["Content-Encoding"] = chosen;
    return new Response(rep.body, { headers });
  };

  return routesOf(consoleRoutes, {
    shell: serveShell,
    asset: (c) => {
      const path = c.req.path;
      if (path === "/admin/") return serveShell();
      const name = path.startsWith("/admin/assets/") ? path.slice("/admin/assets/".length) : "";
      const asset =
        name === "openapi.json"
          ? openapiAsset()
          : name.includes("/")
            ? undefined
            : assets.get(name);
      if (asset === undefined) throw new GatewayError("not_found", "no such console asset");
      return serveAsset(asset, c.req.header("accept-encoding"), c.req.header("if-none-match"));
    },
  });
}
