import {
  chooseAudioRendition,
  chooseVariant,
  isMasterPlaylist,
  readAudioRenditions,
  readVariants,
} from "../ts/hls-playlist-read.js";
import type { RelayFetch } from "./egress-fetch.js";

/** Where an HLS source's media playlist is, after its first fetch. */
export type SourcePlaylist =
  | {
      readonly ok: true;
      /** The media playlist's URL (after redirects, or the chosen variant's). */
      readonly mediaUrl: string;
      /** Its text when the source URL answered it; "" when a variant is still to fetch. */
      readonly text: string;
      /**
       * The media playlist of the variant's audio rendition when its audio is separate
       * (`AUDIO=` naming a group whose renditions have a URI).
       */
      readonly audioUrl?: string;
    }
  | { readonly ok: false; readonly failure: "fetch"; readonly message: string }
  | { readonly ok: false; readonly failure: "not_playlist" | "no_variant" };

/**
 * Fetches an HLS source's URL once and resolves its media playlist: the URL itself when it
 * answers a media playlist, else the variant of `preferHeight` (else the highest bandwidth)
 * of its master playlist. Shared by the relay that reads the source and the failback probe
 * that polls it. `audioLanguages` (the channel's `preferred_audio_languages`) chooses among
 * the variant's audio renditions ({@link chooseAudioRendition}).
 * @example const first = await openSourcePlaylist(fetch, url, 1 << 20, 720);
 */
export async function openSourcePlaylist(
  fetch: RelayFetch,
  url: string,
  maxBytes: number,
  preferHeight: number | null,
  audioLanguages: readonly string[] = [],
): Promise<SourcePlaylist> {
  const r = await fetch(url, maxBytes);
  if (!r.ok) return { ok: false, failure: "fetch", message: r.message };
  const text = r.bytes.toString("utf8");
  if (!text.replace(/^\uFEFF/, "").startsWith("#EXTM3U"))
    return { ok: false, failure: "not_playlist" };
  if (!isMasterPlaylist(text)) return { ok: true, mediaUrl: r.url, text };
  const variant = chooseVariant(readVariants(text, r.url), preferHeight);
  if (variant === undefined) return { ok: false, failure: "no_variant" };
  const audio =
    variant.audioGroup === undefined
      ? undefined
      : chooseAudioRendition(readAudioRenditions(text, r.url), variant.audioGroup, audioLanguages);
  return {
    ok: true,
    mediaUrl: variant.uri,
    text: "",
    ...(audio === undefined ? {} : { audioUrl: audio.uri }),
  };
}
