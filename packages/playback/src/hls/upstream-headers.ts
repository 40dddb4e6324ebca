import type { IncomingHttpHeaders } from "node:http";
import { type Channel, type ChannelCatalog, resolveChannelSource } from "@svc/core/catalog";

/** Sent when a channel has no `user_agent` of its own. */
export const DEFAULT_USER_AGENT = "svc-gateway/0.1";

/**
 * Headers of every upstream request of a channel (issue 3 item 2): its own
 * `headers` and `user_agent` go with playlists, segments, keys and init sections.
 */
export function channelRequestHeaders(channel: Channel): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(channel.headers)) {
    const name = k.toLowerCase();
    if (name !== "host" && name !== "content-length" && name !== "transfer-encoding") out[name] = v;
  }
  out["user-agent"] =
    channel.user_agent !== "" ? channel.user_agent : (out["user-agent"] ?? DEFAULT_USER_AGENT);
  return out;
}

/**
 * The one origin that receives the channel's sensitive headers (issue 12 item 4): its
 * source's scheme, host and port. "null" (the opaque origin, RFC 6454 6.2) when the
 * source is unknown, so that no origin matches.
 */
export function channelCredentialOrigin(channel: Channel, catalog: ChannelCatalog): string {
  const source = resolveChannelSource(channel, catalog);
  if (source === undefined) return "null";
  try {
    return new URL(source).origin;
  } catch {
    return "null";
  }
}

/** Spec "Playback" 3: upstream headers a media answer keeps (a 206 keeps all of them). */
const KEPT = [
  "content-type",
  "content-length",
  "content-range",
  "accept-ranges",
  "etag",
  "last-modified",
];

/**
 * Every `u/` answer relays bytes and a `Content-Type` chosen upstream: a hostile
 * `text/html` or SVG must not run as a page of the gateway's origin (issue 12 item 8).
 * CSP `sandbox` (CSP3 "sandbox" directive) gives it an opaque origin with scripts off.
 */
export const UPSTREAM_CSP = "sandbox; default-src 'none'";

export function keptResponseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = { "content-security-policy": UPSTREAM_CSP };
  for (const name of KEPT) {
    const v = headers[name];
    if (typeof v === "string") out[name] = v;
  }
  return out;
}

/** RFC 8216bis 4: playlist media types (plus the legacy `audio/` spellings). */
const PLAYLIST_TYPES = /^(application|audio)\/(vnd\.apple\.mpegurl|x-mpegurl|mpegurl)\b/i;

export function isPlaylistType(contentType: string | string[] | undefined): boolean {
  return typeof contentType === "string" && PLAYLIST_TYPES.test(contentType);
}

/** Types that do not say what the bytes are, so the body is sniffed for `#EXTM3U`. */
export function isAmbiguousType(contentType: string | string[] | undefined): boolean {
  return (
    typeof contentType !== "string" ||
    /^(text\/plain|application\/octet-stream|binary\/octet-stream)\b/i.test(contentType)
  );
}

/** Upstream statuses passed through with an empty body (spec "Playback" 3). */
export const PASSTHROUGH_STATUSES: ReadonlySet<number> = new Set([404, 410, 416]);
