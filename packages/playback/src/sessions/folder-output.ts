import { Readable } from "node:stream";
import { GatewayError } from "@svc/core/errors";
import type { AppEnv } from "@svc/core/http";
import type { Context } from "hono";
import type { PlayRequest } from "../delivery/play-request.js";
import { PLAYLIST_NAME } from "./ffmpeg/ffmpeg-args.js";
import { serveSessionFile } from "./ffmpeg/serve-session-file.js";
import { mediaCacheControl } from "./media-cache-control.js";
import type { Packager } from "./packager.js";

/** The compatibility engine's playlists: its master and the media playlists `media-<i>`. */
const FOLDER_PLAYLIST = /^media-\d{1,2}\.m3u8$/;

/** Is `file` a playlist of the compatibility engine's folder (never a native engine name)? */
export function isFolderPlaylist(file: string): boolean {
  return file === PLAYLIST_NAME || FOLDER_PLAYLIST.test(file);
}

/**
 * Answers a file of the compatibility engine's folder. `index.m3u8` of the channel is the
 * folder's master playlist one level up (its URIs prefixed with `live/`); `live/{file}`
 * serves the folder's files (media playlists, init sections, segments). Every URI carries the generation `g` and the caller's
 * credential query (the caller answers 410 for a file of another generation).
 *
 * @returns the response and the bytes it will send (for the `bytes_out` counters).
 */
export async function serveFolderFile(
  c: Context<AppEnv>,
  req: PlayRequest,
  packager: Packager,
  file: string,
  where: "index" | "live",
): Promise<{ response: Response; bytes: number }> {
  const folder = packager.folder;
  if (folder === undefined) throw new GatewayError("not_ready", "channel is starting");
  const r = await serveSessionFile(folder, file, {
    playlistQuery: `g=${packager.generation}${req.query}`,
    uriPrefix: where === "index" ? "live/" : "",
  });
  if (!r.ok) throw new GatewayError(r.code, r.message);
  // Media of a session folder: immutable under its generation (the caller answered 410 for
  // another one), public or private by the request (see mediaCacheControl).
  if (!file.toLowerCase().endsWith(".m3u8")) {
    const pinned = new URL(c.req.url).searchParams.get("g") !== null;
    r.headers["cache-control"] = mediaCacheControl(req, pinned);
  }
  const bytes = Number(r.headers["content-length"] ?? 0);
  const body =
    typeof r.body === "string"
      ? r.body
      : (Readable.toWeb(r.body) as unknown as ReadableStream<Uint8Array>);
  return { response: c.body(body, 200, r.headers), bytes };
}
