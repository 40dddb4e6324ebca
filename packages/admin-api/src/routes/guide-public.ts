import { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { GatewayError } from "@svc/core/errors";
import { defineRoutes, PUBLIC, routesOf } from "@svc/core/route-table";
import type { Context, Hono } from "hono";
import { type AdminContext, requestBase } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";

/** Guide output may be cached briefly; the ETag makes revalidation cheap. */
const EPG_CACHE_CONTROL = "public, max-age=300";
/** Spec `/v1/logo/{id}`. */
const LOGO_CACHE_CONTROL = "public, max-age=3600, stale-if-error=86400";

export const guidePublicRoutes = defineRoutes("/v1", {
  xmltv: {
    method: "GET",
    path: "/epg.xml",
    access: PUBLIC,
    summary: "XMLTV guide",
    tag: "guide",
    success: [200, "XMLTV", "application/xml"],
  },
  xmltvGzip: {
    method: "GET",
    path: "/epg.xml.gz",
    access: PUBLIC,
    summary: "XMLTV guide, gzip",
    tag: "guide",
    success: [200, "gzip of the XMLTV", "application/gzip"],
  },
  logo: {
    method: "GET",
    path: "/logo/:id",
    access: PUBLIC,
    summary: "Channel logo",
    tag: "guide",
    success: [200, "Image bytes", "image/*"],
    errors: ["not_found", "upstream_error"],
  },
});

/** `GET /v1/epg.xml`, `/v1/epg.xml.gz` and `/v1/logo/{id}` (spec "Public"). */
export function createGuidePublicRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const guide = ctx.guide;

  const epg = (gzip: boolean) => async (c: Context<AdminEnv>) => {
    await guide.beforeEpgRequest();
    const out = await guide.epg(requestBase(ctx, c));
    const headers: Record<string, string> = {
      "Content-Type": gzip ? "application/gzip" : "application/xml; charset=utf-8",
      // guide.cache false: every request is meant to see a fresh refresh.
      "Cache-Control": ctx.config.guide.cache ? EPG_CACHE_CONTROL : "no-cache",
      ETag: out.etag,
    };
    if (
      c.req
        .header("if-none-match")
        ?.split(/\s*,\s*/)
        .includes(out.etag)
    ) {
      void out.body.return(undefined);
      return c.body(null, 304, headers);
    }
    const xml = Readable.from(out.body, { objectMode: false, highWaterMark: 1 });
    const stream = gzip ? xml.pipe(createGzip()) : xml;
    if (gzip) xml.on("error", (err) => stream.destroy(err));
    return c.body(Readable.toWeb(stream) as ReadableStream, 200, headers);
  };
  return routesOf(guidePublicRoutes, {
    xmltv: epg(false),
    xmltvGzip: epg(true),

    logo: async (c) => {
      const ch = ctx.channels.get(c.req.param("id"));
      if (ch === undefined || ch.disabled) throw new GatewayError("not_found", "channel not found");
      const logo = await guide.logos.get(ch.id, guide.logoCandidates(ch, await guide.matches()));
      if (logo === undefined)
        throw new GatewayError("upstream_error", "no logo source answered with an image");
      return c.body(new Uint8Array(logo.bytes), 200, {
        "Content-Type": logo.contentType,
        "Content-Length": String(logo.bytes.length),
        "Cache-Control": LOGO_CACHE_CONTROL,
        "X-Svc-Logo-Source": logo.source,
        ...(logo.stale ? { Warning: '110 - "Response is Stale"' } : {}),
      });
    },
  });
}
