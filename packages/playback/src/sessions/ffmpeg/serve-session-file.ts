import { constants, type ReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { extname, join } from "node:path";
import { appendQueryToPlaylist } from "./playlist-query.js";

/** Content types of what the compatibility engine writes. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".m3u8": "application/vnd.apple.mpegurl",
  ".m4s": "video/iso.segment",
  ".mp4": "video/mp4",
  ".ts": "video/mp2t",
};

/** Media playlists change every segment; segments never change once published (spec rule 2). */
const PLAYLIST_CACHE = "no-cache";
const SEGMENT_CACHE = "private, max-age=31536000, immutable";
/** A playlist is read whole only to rewrite it; ffmpeg's sliding window is a few hundred bytes. */
const MAX_PLAYLIST_BYTES = 1024 * 1024;

export type SessionFileResult =
  | {
      ok: true;
      status: 200;
      headers: Record<string, string>;
      /** A file stream (close it if the response is abandoned) or the rewritten playlist. */
      body: ReadStream | string;
    }
  | { ok: false; status: 400 | 404; code: "invalid_request" | "not_found"; message: string };

/**
 * Why a `live/{file}` name is refused, or undefined when it is acceptable. The name is the
 * route parameter after percent-decoding: no `/`, `\`, `..` or NUL (spec rule 2: "The file
 * name may not contain path separators"), and nothing starting with a dot.
 */
export function sessionFileNameProblem(name: string): string | undefined {
  if (name === "" || name.length > 255) return "file name length out of range";
  if (/[/\\\0]/.test(name) || name.includes(".."))
    return "file name may not contain / \\ .. or NUL";
  if (name.startsWith(".")) return "file name may not start with a dot";
  return undefined;
}

/**
 * Open one file of a session folder for the `live/{file}` route: validated name, known
 * extension, regular file (symlinks refused), streamed from disk with length, content type
 * and cache policy. With `playlistQuery` (or `uriPrefix`), a playlist is read (bounded)
 * and every URI in it gets that query appended (and the prefix put in front).
 * @example
 * const r = await serveSessionFile(session.dir, c.req.param("file"), { playlistQuery: `token=${token}` });
 * if (!r.ok) throw new GatewayError(r.code, r.message);
 */
export async function serveSessionFile(
  dir: string,
  name: string,
  opts: { playlistQuery?: string; uriPrefix?: string } = {},
): Promise<SessionFileResult> {
  const problem = sessionFileNameProblem(name);
  if (problem !== undefined)
    return { ok: false, status: 400, code: "invalid_request", message: problem };
  const ext = extname(name).toLowerCase();
  const contentType = CONTENT_TYPES[ext];
  const missing = {
    ok: false,
    status: 404,
    code: "not_found",
    message: "no such file in this session",
  } as const;
  if (contentType === undefined) return missing;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return missing;
  }
  const st = await handle.stat();
  if (!st.isFile()) {
    await handle.close();
    return missing;
  }
  const playlist = ext === ".m3u8";
  const query = opts.playlistQuery ?? "";
  const prefix = opts.uriPrefix ?? "";
  let body: ReadStream | string;
  if (playlist && (query !== "" || prefix !== "")) {
    if (st.size > MAX_PLAYLIST_BYTES) {
      await handle.close();
      return missing;
    }
    const text = await handle.readFile("utf8").finally(() => handle.close());
    body = appendQueryToPlaylist(text, query, prefix);
  } else {
    // The stream reads exactly the opened inode, so a rename by ffmpeg mid-response cannot mix files.
    body =
      st.size === 0
        ? await handle.close().then(() => "")
        : handle.createReadStream({ end: st.size - 1, autoClose: true });
  }
  return {
    ok: true,
    status: 200,
    headers: {
      "content-type": contentType,
      "cache-control": playlist ? PLAYLIST_CACHE : SEGMENT_CACHE,
      "content-length": String(typeof body === "string" ? Buffer.byteLength(body) : st.size),
    },
    body,
  };
}
