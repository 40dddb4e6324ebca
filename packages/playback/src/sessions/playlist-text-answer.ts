import type { AppEnv } from "@svc/core/http";
import type { Context } from "hono";
import { PREFIX_MARK } from "../dash/publisher/channel-publication.js";
import { QUERY_MARK } from "../dash/publisher/rendition-window.js";
import type { PlayRequest } from "../delivery/play-request.js";
import { PLAYLIST_CONTENT_TYPE } from "../hls/playlist-answer.js";
import { PLAYLIST_CACHE_CONTROL } from "./media-cache-control.js";

/**
 * A locally packaged playlist (DASH or TS engine) answered for one request: its prefix and
 * query marks replaced by the request's own, with the byte count the caller adds to its
 * counters.
 */
export function answerPlaylistText(
  c: Context<AppEnv>,
  text: string,
  req: PlayRequest,
): { response: Response; bytes: number } {
  const body = text.replaceAll(PREFIX_MARK, req.prefix).replaceAll(QUERY_MARK, req.query);
  const response = c.body(body, 200, {
    "Content-Type": PLAYLIST_CONTENT_TYPE,
    "Cache-Control": PLAYLIST_CACHE_CONTROL,
  });
  return { response, bytes: Buffer.byteLength(body) };
}
