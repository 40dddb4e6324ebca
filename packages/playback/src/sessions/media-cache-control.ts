import type { PlayRequest } from "../delivery/play-request.js";

/**
 * Playlists (master, media, the 307 of a moved generation) change with every segment or
 * part, and a blocking reload is answered when the gateway has what it asks for: any cache
 * must ask the gateway again on every use (RFC 9111 5.2.2.4), so a player or a cache in
 * front never holds a playlist past its edge (RFC 8216bis 6.2.5.2, 6.3.4).
 */
export const PLAYLIST_CACHE_CONTROL = "no-cache";

/** Spec "Limits": media caching `max-age=31536000`. */
const MEDIA_MAX_AGE_SEC = 31_536_000;

/**
 * `Cache-Control` of a locally packaged init section, segment or part (spec "Playback" 2).
 *
 * - `pinned` (the URL carries the generation `g` it was published under): the bytes at
 *   that URL never change, since generations are unique per packager start and per
 *   instance, and a file name never gets other bytes within one. Immutable for a year.
 * - not pinned (no `g`: whatever the current generation holds under that name, which a
 *   restart or a takeover changes): revalidated like a playlist.
 *
 * `public` only when the request needed no credential and carries no per-viewer lease
 * (`request.sharedCache`), so nginx or a CDN in front can serve one copy to every viewer.
 * Otherwise `private`: the URL needs a credential (a token in the query, which a cache key
 * may drop, or a playback key whose revocation and access log must see every request),
 * and a shared cache must not hand those bytes to a request without one.
 * The reasons, for operators: docs/playback.md "Cache-Control".
 * @example mediaCacheControl({ sharedCache: true }, true) // "public, max-age=31536000, immutable"
 */
export function mediaCacheControl(
  request: Pick<PlayRequest, "sharedCache">,
  pinned: boolean,
): string {
  if (!pinned) return PLAYLIST_CACHE_CONTROL;
  const scope = request.sharedCache === true ? "public" : "private";
  return `${scope}, max-age=${MEDIA_MAX_AGE_SEC}, immutable`;
}
