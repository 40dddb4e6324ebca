import { GatewayError } from "@svc/core/errors";
import type { AppEnv, Build } from "@svc/core/http";
import type { Context } from "hono";
import type { PlayRequest } from "../delivery/play-request.js";
import type { PlaybackStats } from "../delivery/playback-stats.js";
import { sendBytes } from "./direct-response.js";
import type { CompiledPlaylist } from "./playlist-rewriter.js";
import type { PlaylistOutcome } from "./playlist-source.js";
import { renderedPlaylist } from "./rendered-playlists.js";
import { UPSTREAM_CSP } from "./upstream-headers.js";

/** RFC 8216bis 4: the media type every playlist the gateway writes carries. */
export const PLAYLIST_CONTENT_TYPE = "application/vnd.apple.mpegurl";

/** `u/` targets with these extensions are playlists (fetched through the playlist source). */
export const UPSTREAM_PLAYLIST_EXTENSIONS: ReadonlySet<string> = new Set([".m3u8", ".m3u"]);

/** Every `u/` answer is sandboxed: an upstream's bytes never run as a page of this origin. */
export const SANDBOXED: Readonly<Record<string, string>> = {
  "content-security-policy": UPSTREAM_CSP,
};

/** Answers a compiled playlist rendered for the request's credential form (cached per form). */
export function playlistResponse(
  c: Context<AppEnv>,
  request: PlayRequest,
  compiled: CompiledPlaylist,
  stats: PlaybackStats,
  rt: { build: Build; withCors: boolean },
  extraHeaders: Record<string, string> = {},
): Response {
  const bytes = renderedPlaylist(compiled, request.prefix, request.query);
  stats.bytesOut += bytes.length;
  return sendBytes(c, rt.build, rt.withCors, PLAYLIST_CONTENT_TYPE, bytes, extraHeaders);
}

/**
 * Answers a non-playlist outcome of a `u/` fetch (spec "Playback" 3): upstream
 * 404/410/416 pass through with an empty body (416 keeps only `Content-Range`),
 * a refused target is 403, anything else a controlled 502.
 */
export function upstreamOutcomeResponse(
  c: Context<AppEnv>,
  outcome: Exclude<PlaylistOutcome, { kind: "playlist" }>,
  stats: PlaybackStats,
): Response {
  switch (outcome.kind) {
    case "status":
      return c.body(
        null,
        outcome.status,
        outcome.contentRange === undefined ? {} : { "Content-Range": outcome.contentRange },
      );
    case "bytes":
      stats.bytesOut += outcome.bytes.length;
      return c.body(new Uint8Array(outcome.bytes), 200, outcome.headers);
    case "refused":
      throw new GatewayError("forbidden", "upstream target not allowed");
    case "failed":
      throw new GatewayError("upstream_error", outcome.message);
    case "invalid":
      throw new GatewayError("invalid_request", outcome.message);
  }
}
